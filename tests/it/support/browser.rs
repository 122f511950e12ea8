//! Headless Chromium through chromedriver (WebDriver, with fantoccini), for the tests
//! that open pages in a real browser: finding both programs (a test is skipped loudly
//! without them, and must run with `CI=true`), chromedriver on a free loopback port,
//! a session with extra Chromium flags, and screenshots under `tests/artifacts/web/`.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder};
use serde_json::json;

pub type BrowserResult<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

/// An executable on `PATH`.
fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .flat_map(|dir| names.iter().map(move |name| dir.join(name)))
        .find(|candidate| candidate.is_file())
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// Chromium and chromedriver, or `None` (after saying so loudly) when the test may skip.
pub fn browser_programs() -> Option<(PathBuf, PathBuf)> {
    let chromium = find_program(&["chromium", "chromium-browser", "google-chrome"]);
    let driver = find_program(&["chromedriver"]);
    match (chromium, driver) {
        (Some(chromium), Some(driver)) => Some((chromium, driver)),
        (chromium, driver) => {
            let missing = [
                chromium.is_none().then_some("chromium"),
                driver.is_none().then_some("chromedriver"),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(" and ");
            assert!(
                !in_ci(),
                "CI=true but {missing} is not installed: the browser tests must run in CI"
            );
            eprintln!(
                "\n==================== BROWSER TEST SKIPPED ====================\n\
                 {missing} not found on PATH. Install them to run the browser tests:\n\
                 apt-get install -y chromium chromium-driver\n\
                 ==============================================================\n"
            );
            None
        }
    }
}

/// A running chromedriver on a free loopback port, killed on drop.
pub struct Driver {
    child: Child,
    /// chromedriver's loopback port, for the raw WebDriver calls fantoccini lacks.
    pub port: u16,
}

impl Driver {
    /// Starts chromedriver and waits until its `/status` says it is ready. A port taken
    /// between choosing it and chromedriver's bind (or a connect that met itself) makes
    /// it exit or never answer: it is then started again on another port.
    pub fn start(program: &Path, log: &Path) -> Driver {
        for _ in 0..3 {
            let port = TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map(|a| a.port())
                .expect("a free port");
            let child = Command::new(program)
                .arg(format!("--port={port}"))
                .arg("--allowed-ips=127.0.0.1")
                .arg(format!("--log-path={}", log.display()))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("start chromedriver");
            let mut driver = Driver { child, port };
            let deadline = Instant::now() + Duration::from_secs(20);
            while Instant::now() < deadline {
                if driver.ready() {
                    return driver;
                }
                if driver.child.try_wait().ok().flatten().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        panic!("chromedriver did not start (log: {})", log.display());
    }

    /// Whether chromedriver answers its status with `"ready": true`.
    fn ready(&self) -> bool {
        use std::io::{Read, Write};
        let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) else {
            return false;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(2)));
        let request = format!(
            "GET /status HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nConnection: close\r\n\r\n",
            self.port
        );
        let mut answer = String::new();
        if stream.write_all(request.as_bytes()).is_err()
            || stream.read_to_string(&mut answer).is_err() && answer.is_empty()
        {
            return false;
        }
        answer.starts_with("HTTP/1.1 200") && answer.replace(' ', "").contains("\"ready\":true")
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A headless Chromium session with the flags that work here (as root, in a
/// container), a fresh profile at `profile`, and `extra` flags.
pub async fn session(
    driver: &Driver,
    chromium: &Path,
    profile: &Path,
    extra: &[String],
) -> BrowserResult<Client> {
    let mut args = vec![
        "--headless".to_string(),
        "--no-sandbox".to_string(),
        "--disable-gpu".to_string(),
        "--disable-quic".to_string(),
        "--no-first-run".to_string(),
        "--disable-background-networking".to_string(),
        "--disable-component-update".to_string(),
        "--disable-sync".to_string(),
        "--disable-dev-shm-usage".to_string(),
        "--hide-scrollbars".to_string(),
        "--window-size=1280,900".to_string(),
        format!("--user-data-dir={}", profile.display()),
    ];
    args.extend_from_slice(extra);
    let mut caps = serde_json::Map::new();
    // WebDriver Classic accepts the dialog a page raises before it is left, unseen; with
    // BiDi on (`webSocketUrl`), a session may keep it open for the test to see, as the
    // editor's is tested. Any other dialog still fails the next command.
    caps.insert("webSocketUrl".into(), json!(true));
    caps.insert(
        "unhandledPromptBehavior".into(),
        json!({"beforeUnload": "ignore", "default": "dismiss and notify"}),
    );
    caps.insert(
        "goog:chromeOptions".into(),
        json!({"binary": chromium, "args": args}),
    );
    // Chromium may fail to come up on a loaded machine; a fresh try usually works.
    let mut attempt = 0;
    loop {
        let connector = hyper_util::client::legacy::connect::HttpConnector::new();
        match ClientBuilder::new(connector)
            .capabilities(caps.clone())
            .connect(&driver.url())
            .await
        {
            Ok(client) => return Ok(client),
            Err(err) if attempt < 2 => {
                eprintln!("a browser session failed to start, trying again: {err}");
                attempt += 1;
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            Err(err) => return Err(err.into()),
        }
    }
}

/// Saves a screenshot of the page as `tests/artifacts/web/NAME.png`.
pub async fn screenshot(client: &Client, name: &str) -> BrowserResult {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/artifacts/web");
    std::fs::create_dir_all(&dir)?;
    std::fs::write(dir.join(format!("{name}.png")), client.screenshot().await?)?;
    Ok(())
}

/// Runs `flow` in a fresh session of Chromium with `extra` flags, its profile and
/// chromedriver's log under `scratch`; a failure panics with a screenshot
/// (`NAME-failure.png`) and the end of chromedriver's log.
pub fn in_browser(
    (chromium, chromedriver): (&Path, &Path),
    scratch: &Path,
    name: &str,
    extra: &[String],
    flow: impl AsyncFnOnce(&Client) -> BrowserResult,
) {
    let log = scratch.join("chromedriver.log");
    let driver = Driver::start(chromedriver, &log);
    let profile = scratch.join("chromium-profile");
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let outcome = runtime.block_on(async {
        let client = session(&driver, chromium, &profile, extra).await?;
        let outcome = flow(&client).await;
        if outcome.is_err() {
            let _ = screenshot(&client, &format!("{name}-failure")).await;
        }
        let _ = client.close().await;
        outcome
    });
    if let Err(err) = outcome {
        panic!(
            "browser flow failed: {err}\nchromedriver log tail:\n{}",
            std::fs::read_to_string(&log)
                .unwrap_or_default()
                .lines()
                .rev()
                .take(20)
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
}
