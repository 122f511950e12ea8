//! Changing the targets of links in place: only the bytes of each target change, so a
//! link keeps its style (`[[…]]` or `[…](…)`), its label and everything around it.

use super::Link;

/// `text` with the target of each link replaced by its new target. Links must come from
/// `links_of(text)`. Uses of one reference definition share its target's bytes, which are
/// replaced once (by the first new target given for them); a range that overlaps one
/// already replaced is left alone.
#[allow(dead_code)] // the move is its caller
pub(crate) fn rewrite(text: &str, links_to_change: &[(&Link, String)]) -> String {
    let mut changes: Vec<(std::ops::Range<usize>, &str)> = links_to_change
        .iter()
        .map(|(link, target)| (link.dest.clone(), target.as_str()))
        .filter(|(range, _)| text.get(range.clone()).is_some())
        .collect();
    // Stable: of two changes of one range, the first given stays first.
    changes.sort_by_key(|(range, _)| range.start);
    let mut out = String::with_capacity(text.len() + 64);
    let mut done = 0;
    for (range, target) in changes {
        if range.start < done {
            continue;
        }
        out.push_str(&text[done..range.start]);
        out.push_str(target);
        done = range.end;
    }
    out.push_str(&text[done..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::links::links_of;

    #[test]
    fn rewriting_keeps_labels_headings_and_style() {
        let text = "---\ntitle: T\n---\n\
                    [[bread|my bread]] [[bread#Dough]] ![[bread]]\n\
                    [recipe](../bread.md#dough \"title\") [other](other.md)\n";
        let links = links_of(text);
        let changes: Vec<(&Link, String)> = links
            .iter()
            .filter(|l| l.note.contains("bread"))
            .map(|l| {
                let heading = l
                    .heading
                    .as_ref()
                    .map(|h| format!("#{h}"))
                    .unwrap_or_default();
                let target = if l.is_wiki() {
                    format!("kitchen/loaf{heading}")
                } else {
                    format!("../kitchen/loaf%20one.md{heading}")
                };
                (l, target)
            })
            .collect();
        assert_eq!(changes.len(), 4);
        assert_eq!(
            rewrite(text, &changes),
            "---\ntitle: T\n---\n\
             [[kitchen/loaf|my bread]] [[kitchen/loaf#Dough]] ![[kitchen/loaf]]\n\
             [recipe](../kitchen/loaf%20one.md#dough \"title\") [other](other.md)\n"
        );
    }

    #[test]
    fn a_shared_reference_definition_is_rewritten_once() {
        let text = "[a][r] and [b][r]\n\n[r]: <old name.md>\n";
        let links = links_of(text);
        assert_eq!(links.len(), 2);
        let changes = [
            (&links[0], "new.md".to_string()),
            (&links[1], "new.md".to_string()),
        ];
        assert_eq!(
            rewrite(text, &changes),
            "[a][r] and [b][r]\n\n[r]: <new.md>\n"
        );
    }

    #[test]
    fn no_change_gives_the_text_back() {
        let text = "no links [[here]]";
        assert_eq!(rewrite(text, &[]), text);
    }
}
