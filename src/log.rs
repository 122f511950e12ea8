//! Service log lines on stderr, one per event, with a UTC timestamp.

fn line(level: &str, message: &str) {
    let now = chrono::Utc::now().format("%Y-%m-%dT%H:%M:%S%.3fZ");
    eprintln!("{now} {level} {message}");
}

pub(crate) fn info(message: &str) {
    line("INFO", message);
}

pub(crate) fn warn(message: &str) {
    line("WARN", message);
}

pub(crate) fn error(message: &str) {
    line("ERROR", message);
}
