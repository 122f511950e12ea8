//! A small XML well-formedness check for the Atom feed: balanced, properly nested tags,
//! quoted attributes, known entities only, one root element.

pub fn check_well_formed(text: &str) {
    let body = text
        .strip_prefix("<?xml")
        .and_then(|t| t.split_once("?>"))
        .map(|(_, rest)| rest)
        .expect("XML declaration");
    let mut stack: Vec<String> = Vec::new();
    let mut rest = body;
    let mut roots = 0;
    while let Some(start) = rest.find(['<', '&']) {
        check_text(&rest[..start]);
        rest = &rest[start..];
        if rest.starts_with('&') {
            let end = rest.find(';').expect("entity end");
            let entity = &rest[1..end];
            let known = ["amp", "lt", "gt", "quot", "apos"].contains(&entity)
                || entity
                    .strip_prefix('#')
                    .is_some_and(|n| n.parse::<u32>().is_ok());
            assert!(known, "unknown entity &{entity};");
            rest = &rest[end + 1..];
            continue;
        }
        let end = rest.find('>').expect("tag end");
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        if let Some(name) = tag.strip_prefix('/') {
            assert_eq!(
                stack.pop().as_deref(),
                Some(name.trim()),
                "closing </{name}>"
            );
            continue;
        }
        let self_closing = tag.ends_with('/');
        let tag = tag.trim_end_matches('/');
        let (name, attrs) = tag.split_once(' ').unwrap_or((tag, ""));
        assert!(
            !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == ':'),
            "<{tag}>"
        );
        check_attributes(attrs);
        if stack.is_empty() {
            roots += 1;
        }
        if !self_closing {
            stack.push(name.to_string());
        }
    }
    check_text(rest);
    assert!(stack.is_empty(), "unclosed {stack:?}");
    assert_eq!(roots, 1, "one root element");
}

fn check_text(text: &str) {
    assert!(!text.contains('>'), "stray > in {text:?}");
    assert!(
        !text
            .chars()
            .any(|c| c.is_control() && !"\n\r\t".contains(c))
    );
}

fn check_attributes(mut attrs: &str) {
    loop {
        attrs = attrs.trim_start();
        if attrs.is_empty() {
            return;
        }
        let (name, value) = attrs.split_once("=\"").expect("attribute name=\"value\"");
        assert!(
            !name.is_empty() && !name.contains(' '),
            "attribute {name:?}"
        );
        let end = value.find('"').expect("closing quote");
        assert!(!value[..end].contains('<'), "< in attribute");
        attrs = &value[end + 1..];
    }
}

#[test]
fn the_checker_refuses_malformed_xml() {
    let decl = "<?xml version=\"1.0\"?>";
    check_well_formed(&format!("{decl}<a><b x=\"1\"/>&amp;</a>"));
    for bad in [
        "<a><b></a></b>",
        "<a>&nbsp;</a>",
        "<a x=1></a>",
        "<a></a><b></b>",
        "<a>",
    ] {
        let text = format!("{decl}{bad}");
        let result = std::panic::catch_unwind(|| check_well_formed(&text));
        assert!(result.is_err(), "{bad} was accepted");
    }
}
