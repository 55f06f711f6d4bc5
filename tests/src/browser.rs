//! Headless Chromium for the tests of the browser client, driven through WebDriver:
//! the fantoccini library talks to Debian's chromedriver, which starts the browser.
//! Load a page, read it with JavaScript, click as a person would, take screenshots.
//!
//! fantoccini is asynchronous; each call here runs it to completion on a runtime of
//! its own, so the tests read as plain steps.

use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::wd::{Capabilities, WebDriverCompatibleCommand};
use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{json, Value};

/// The browser and its WebDriver server, both found on PATH.
#[derive(Debug, Clone)]
pub struct Chromium {
    browser: PathBuf,
    driver: PathBuf,
}

/// Chromium and chromedriver, if both are installed.
pub fn chromium() -> Option<Chromium> {
    let browser = ["chromium", "chromium-browser"]
        .into_iter()
        .find_map(path_of)?;
    let driver = path_of("chromedriver")?;
    Some(Chromium { browser, driver })
}

/// Where `program` is on PATH (chromedriver wants the browser's full path).
fn path_of(program: &str) -> Option<PathBuf> {
    crate::capture::on_path(program).then_some(())?;
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

/// The browser's switches. The machine's network is closed and it has no display
/// nor GPU: nothing may reach out (updates, sync, first-run pages) or need either.
const SWITCHES: [&str; 10] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
];

/// How long chromedriver may take to listen, and one WebDriver command to answer.
const DRIVER_TIMEOUT: Duration = Duration::from_secs(20);

/// A headless browser with one page; closed, with chromedriver and the fresh
/// profile, when dropped.
pub struct Browser {
    runtime: tokio::runtime::Runtime,
    client: Client,
    // Dropped after the session is closed, in this order.
    _driver: Driver,
    _profile: Profile,
}

impl Browser {
    /// Starts the browser headless with a page of `width` × `height` CSS pixels.
    pub fn start(chromium: &Chromium, width: u32, height: u32) -> Result<Browser, String> {
        let profile = Profile::fresh()?;
        let (driver, port) = Driver::start(&chromium.driver)?;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("a runtime for fantoccini: {e}"))?;
        let capabilities = capabilities(&chromium.browser, &profile.0, width, height);
        let mut builder =
            ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new());
        builder.capabilities(capabilities);
        let url = format!("http://127.0.0.1:{port}");
        // fantoccini spawns its session task as it connects: inside the runtime.
        let connect = async { tokio::time::timeout(DRIVER_TIMEOUT, builder.connect(&url)).await };
        let client = match runtime.block_on(connect) {
            Ok(Ok(client)) => client,
            Ok(Err(e)) => return Err(format!("a browser session: {e}")),
            Err(_) => return Err(format!("no browser session in {DRIVER_TIMEOUT:?}")),
        };
        let mut browser = Browser {
            runtime,
            client,
            _driver: driver,
            _profile: profile,
        };
        browser.viewport(width, height, false)?;
        Ok(browser)
    }

    /// Runs one WebDriver exchange to its end, or fails after [`DRIVER_TIMEOUT`].
    fn run<T, E: std::fmt::Display>(
        &self,
        what: &str,
        step: impl std::future::Future<Output = Result<T, E>>,
    ) -> Result<T, String> {
        // The timer belongs to the runtime: made inside it.
        let step = async { tokio::time::timeout(DRIVER_TIMEOUT, step).await };
        match self.runtime.block_on(step) {
            Ok(result) => result.map_err(|e| format!("{what}: {e}")),
            Err(_) => Err(format!("{what}: no answer in {DRIVER_TIMEOUT:?}")),
        }
    }

    /// Sets the page's size; `mobile` for a phone's (its viewport rules and touch).
    /// WebDriver has no phone emulation of its own: this is chromedriver's passage
    /// to the DevTools protocol.
    pub fn viewport(&mut self, width: u32, height: u32, mobile: bool) -> Result<(), String> {
        let command = DevTools {
            method: "Emulation.setDeviceMetricsOverride",
            params: json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
        };
        self.run("viewport", self.client.issue_cmd(command))
            .map(drop)
    }

    pub fn navigate(&mut self, url: &str) -> Result<(), String> {
        self.run(url, self.client.goto(url))
    }

    /// The value of a JavaScript expression in the page (a promise's, once settled).
    pub fn eval(&mut self, expression: &str) -> Result<Value, String> {
        let script = format!("return ({expression});");
        self.run(expression, self.client.execute(&script, Vec::new()))
    }

    /// Waits until `expression` is truthy; returns its value.
    pub fn wait_for(&mut self, expression: &str, timeout: Duration) -> Result<Value, String> {
        let deadline = Instant::now() + timeout;
        loop {
            let value = self.eval(expression)?;
            let truthy = !matches!(value, Value::Null | Value::Bool(false))
                && value != json!(0)
                && value != json!("");
            if truthy {
                return Ok(value);
            }
            if Instant::now() > deadline {
                return Err(format!("waited {timeout:?} for {expression}"));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Clicks the middle of the first element `selector` finds, as the user's mouse
    /// would: WebDriver scrolls it into view and fails if something covers it.
    pub fn click(&mut self, selector: &str) -> Result<(), String> {
        let client = &self.client;
        self.run(selector, async move {
            client.find(Locator::Css(selector)).await?.click().await
        })
    }

    /// Saves what the page shows as a PNG.
    pub fn screenshot(&mut self, path: &Path) -> Result<(), String> {
        let png = self.run("screenshot", self.client.screenshot())?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        }
        std::fs::write(path, png).map_err(|e| format!("{}: {e}", path.display()))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Ending the session closes the browser; the driver's process group catches what is left.
        let _ = self.run("closing the browser", self.client.clone().close());
    }
}

/// A DevTools command sent through chromedriver (`goog/cdp/execute`).
#[derive(Debug)]
struct DevTools {
    method: &'static str,
    params: Value,
}

impl WebDriverCompatibleCommand for DevTools {
    fn endpoint(
        &self,
        base: &url::Url,
        session: Option<&str>,
    ) -> Result<url::Url, url::ParseError> {
        base.join(&format!(
            "session/{}/goog/cdp/execute",
            session.unwrap_or_default()
        ))
    }

    fn method_and_body(&self, _: &url::Url) -> (http::Method, Option<String>) {
        let body = json!({"cmd": self.method, "params": self.params});
        (http::Method::POST, Some(body.to_string()))
    }
}

/// The session's capabilities: which browser, its switches, its window and profile.
fn capabilities(browser: &Path, profile: &Path, width: u32, height: u32) -> Capabilities {
    let mut args: Vec<String> = SWITCHES.iter().map(|s| (*s).to_owned()).collect();
    args.push(format!("--window-size={width},{height}"));
    args.push(format!("--user-data-dir={}", profile.display()));
    let options = json!({"binary": browser, "args": args});
    let mut capabilities = Capabilities::new();
    capabilities.insert("browserName".to_owned(), json!("chrome"));
    capabilities.insert("goog:chromeOptions".to_owned(), options);
    capabilities
}

/// The browser's profile: an empty directory of this process's own, removed when dropped.
struct Profile(PathBuf);

impl Profile {
    fn fresh() -> Result<Profile, String> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir =
            std::env::temp_dir().join(format!("reversi-chromium-{}-{nanos}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        Ok(Profile(dir))
    }
}

impl Drop for Profile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// chromedriver in a process group of its own, with the browser it starts; the
/// whole group is killed when dropped.
struct Driver(Child);

impl Driver {
    /// Starts chromedriver on a port of its choosing; returns it and its port.
    fn start(program: &Path) -> Result<(Driver, u16), String> {
        let mut child = Command::new(program)
            .args(["--port=0", "--log-level=SEVERE"])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", program.display()))?;
        let stdout = child.stdout.take();
        let driver = Driver(child);
        let port = driver_port(stdout.ok_or("chromedriver's output")?)?;
        Ok((driver, port))
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(self.0.id() as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = self.0.wait();
    }
}

/// Reads chromedriver's "… started successfully on port N." line, then leaves a
/// thread to drain the rest so that it never blocks on a full pipe.
fn driver_port(stdout: ChildStdout) -> Result<u16, String> {
    let mut lines = BufReader::new(stdout);
    let mut line = String::new();
    loop {
        line.clear();
        match lines.read_line(&mut line) {
            Ok(0) | Err(_) => return Err("chromedriver ended before it listened".to_owned()),
            Ok(_) => {}
        }
        let Some(rest) = line.split("started successfully on port ").nth(1) else {
            continue;
        };
        let port = rest.trim().trim_end_matches('.').parse();
        std::thread::spawn(move || std::io::copy(&mut lines, &mut std::io::sink()));
        return port.map_err(|_| format!("chromedriver's port in {line:?}"));
    }
}

/// A computer player (`reversi bot`) as the page's opponent, stopped when dropped.
pub struct Bot(std::process::Child);

impl Bot {
    /// A bot for `game` on `server`, thinking `move_ms` a move.
    pub fn start(server: &crate::Server, game: &str, move_ms: &str) -> Bot {
        let child = Command::new(crate::reversi_binary())
            .args(["bot", "--game", game, &server.addr().to_string()])
            .args(["--move-time", move_ms, "--level", "1"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start reversi bot");
        Bot(child)
    }
}

impl Drop for Bot {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
