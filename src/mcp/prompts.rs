//! Prompts a client offers its user as ready-made requests: summarise a folder, open
//! today's daily note. Each names the tools to call, so the model needs no guessing.

use chrono::{Local, NaiveDate};
use rmcp::ErrorData;
use rmcp::model::{GetPromptResult, JsonObject, Prompt, PromptArgument, PromptMessage, Role};

const SUMMARISE: &str = "summarise_folder";
const DAILY: &str = "daily_note";

/// The prompts of a session: the daily note writes, so a read-only session has none of it.
pub(super) fn list(read_only: bool) -> Vec<Prompt> {
    let mut prompts = vec![Prompt::new(
        SUMMARISE,
        Some("Summarise the notes of a folder: topics, open questions, what to read first"),
        Some(vec![PromptArgument::new("folder").with_description(
            "Folder relative to the notes folder (every note when left out)",
        )]),
    )];
    if !read_only {
        prompts.push(Prompt::new(
            DAILY,
            Some("Open the daily note of a day (daily/YYYY-MM-DD.md), made if missing"),
            Some(vec![PromptArgument::new("date").with_description(
                "The day, YYYY-MM-DD (today when left out)",
            )]),
        ));
    }
    prompts
}

/// The messages of prompt `name` with `arguments`; invalid params (-32602) for an
/// unknown prompt or a bad argument.
pub(super) fn get(
    name: &str,
    arguments: Option<&JsonObject>,
    read_only: bool,
) -> Result<GetPromptResult, ErrorData> {
    let argument = |key: &str| {
        arguments
            .and_then(|a| a.get(key))
            .and_then(|v| v.as_str())
            .map(str::trim)
            .filter(|v| !v.is_empty())
    };
    let text = match name {
        SUMMARISE => {
            let folder = argument("folder").unwrap_or("").trim_matches('/');
            let (scope, call) = if folder.is_empty() {
                ("all my notes".to_string(), "list_notes".to_string())
            } else {
                (
                    format!("the notes in the folder `{folder}`"),
                    format!("list_notes with folder \"{folder}\""),
                )
            };
            format!(
                "Summarise {scope}. Call {call} (pass nextCursor back until there is none), \
                 then read each note with read_note (mode outline first for a long one). \
                 Write a summary: the main topics, open questions and tasks, and the notes \
                 worth reading first, each named by its path."
            )
        }
        DAILY if !read_only => {
            let day = match argument("date") {
                Some(text) => NaiveDate::parse_from_str(text, "%Y-%m-%d").map_err(|_| {
                    ErrorData::invalid_params(format!("date {text:?} is not YYYY-MM-DD"), None)
                })?,
                None => Local::now().date_naive(),
            };
            let before = day.pred_opt().unwrap_or(day);
            format!(
                "Open my daily note for {day}: read daily/{day}.md with read_note; if it does \
                 not exist, create it with create_note at that path, titled {day}, with the \
                 sections Tasks, Notes and Links. If daily/{before}.md exists, link it as \
                 [[daily/{before}]] under Links and list its tasks still open."
            )
        }
        _ => {
            return Err(ErrorData::invalid_params(
                format!("no prompt named {name:?}"),
                None,
            ));
        }
    };
    Ok(GetPromptResult::new(vec![PromptMessage::new_text(
        Role::User,
        text,
    )]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(pairs: &[(&str, &str)]) -> JsonObject {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), serde_json::Value::from(*v)))
            .collect()
    }

    fn text(result: &GetPromptResult) -> String {
        serde_json::to_value(&result.messages[0].content).unwrap()["text"]
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn prompts_name_their_tools_and_check_their_arguments() {
        let names = |ro| list(ro).into_iter().map(|p| p.name).collect::<Vec<_>>();
        assert_eq!(names(false), [SUMMARISE, DAILY]);
        assert_eq!(names(true), [SUMMARISE]);
        let summary = get(SUMMARISE, Some(&args(&[("folder", "work/")])), true).unwrap();
        assert!(text(&summary).contains("list_notes with folder \"work\""));
        let daily = get(DAILY, Some(&args(&[("date", "2026-03-01")])), false).unwrap();
        assert!(text(&daily).contains("daily/2026-03-01.md"));
        assert!(text(&daily).contains("[[daily/2026-02-28]]"));
        assert!(get(DAILY, Some(&args(&[("date", "March")])), false).is_err());
        assert!(get(DAILY, None, true).is_err(), "no writes when read-only");
        assert!(get("nope", None, false).is_err());
    }
}
