//! A git remote over `https://` on 127.0.0.1: `git http-backend` behind Basic
//! authentication and TLS with a certificate made for the test (`git_https.py`), and a
//! home folder whose git configuration trusts that certificate and has the password in
//! git's credential store, as a user sets git up. Killed on drop (`Served`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::remotes::{Served, init_bare, programs, run};

const USER: &str = "ann";
const PASSWORD: &str = "s3cret-pass";

pub struct HttpsRemote {
    served: Served,
    /// The remote's URL, with no credentials in it.
    pub url: String,
    /// The bare repository served.
    pub bare: PathBuf,
    home: PathBuf,
    credentials: PathBuf,
    port: u16,
    _dir: tempfile::TempDir,
}

impl HttpsRemote {
    /// Serves a new bare repository; `None` when git, python3 or openssl is missing
    /// (a failure with `CI=true`).
    pub fn start() -> Option<HttpsRemote> {
        programs(&[
            ("git", "git"),
            ("python3", "python3"),
            ("openssl", "openssl"),
        ])?;
        let dir = tempfile::tempdir().unwrap();
        let path = |name: &str| dir.path().join(name);
        let (cert, key) = (path("cert.pem"), path("key.pem"));
        run(
            Path::new("openssl"),
            &[
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-days",
                "2",
                "-subj",
                "/CN=127.0.0.1",
                "-addext",
                "subjectAltName=IP:127.0.0.1",
                "-keyout",
                key.to_str().unwrap(),
                "-out",
                cert.to_str().unwrap(),
            ],
        );
        let root = path("srv");
        let bare = root.join("notes.git");
        init_bare(&bare);
        let log = path("https.log");
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support/git_https.py");
        let child = Command::new("python3")
            .arg(script)
            .args([&root, &cert, &key].map(|p| p.as_os_str()))
            .args([USER, PASSWORD])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .expect("start the https server");
        let served =
            Served::when_ready(child, &log, "listening on").expect("the https server exited");
        let port: u16 = std::fs::read_to_string(&log)
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("listening on "))
            .and_then(|p| p.trim().parse().ok())
            .expect("a port");
        let home = path("home");
        std::fs::create_dir(&home).unwrap();
        let credentials = path("credentials");
        std::fs::write(
            home.join(".gitconfig"),
            format!(
                "[credential]\n\thelper = store --file {}\n[http]\n\tsslCAInfo = {}\n",
                credentials.display(),
                cert.display()
            ),
        )
        .unwrap();
        let remote = HttpsRemote {
            served,
            url: format!("https://127.0.0.1:{port}/notes.git"),
            bare,
            home,
            credentials,
            port,
            _dir: dir,
        };
        remote.store_password(PASSWORD);
        Some(remote)
    }

    /// Puts `password` in the user's credential store for this remote.
    pub fn store_password(&self, password: &str) {
        std::fs::write(
            &self.credentials,
            format!("https://{USER}:{password}@127.0.0.1:{}\n", self.port),
        )
        .unwrap();
    }

    /// The password the server takes.
    pub fn password(&self) -> &'static str {
        PASSWORD
    }

    /// `cmd` run as the user: this home folder's git configuration, and nothing of
    /// this machine's (no system configuration, no CA file or proxy from the
    /// environment, which would win over the user's configuration).
    pub fn as_user(&self, mut cmd: Command) -> Command {
        cmd.env("HOME", &self.home)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env_remove("GIT_CONFIG_GLOBAL")
            .env_remove("GIT_SSL_CAINFO")
            .env_remove("GIT_SSL_CAPATH");
        for proxy in ["http_proxy", "https_proxy", "all_proxy", "no_proxy"] {
            cmd.env_remove(proxy).env_remove(proxy.to_ascii_uppercase());
        }
        cmd
    }

    pub fn log(&self) -> String {
        self.served.log()
    }
}
