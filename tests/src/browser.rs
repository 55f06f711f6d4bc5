//! Headless Chromium driven over the DevTools protocol (a WebSocket carrying JSON
//! commands), for the tests of the browser client: load a page, read it with
//! JavaScript, click with the mouse as a person would, take screenshots.

use std::io::ErrorKind;
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{json, Value};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

/// The browser's program, if one is installed.
pub fn chromium() -> Option<&'static str> {
    ["chromium", "chromium-browser"]
        .into_iter()
        .find(|p| crate::capture::on_path(p))
}

/// How long one DevTools command may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(20);

/// A headless browser with one page, closed (with its helper processes) when dropped.
pub struct Browser {
    child: Child,
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    /// The page's DevTools session.
    session: String,
    next_id: u64,
    profile: PathBuf,
}

impl Browser {
    /// Starts `program` headless with a window of `width` × `height` CSS pixels.
    pub fn start(program: &str, width: u32, height: u32) -> Result<Browser, String> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let profile =
            std::env::temp_dir().join(format!("reversi-chromium-{}-{nanos}", std::process::id()));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile).map_err(|e| e.to_string())?;
        let child = Command::new(program)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--no-first-run",
                "--no-default-browser-check",
                "--hide-scrollbars",
                "--remote-debugging-port=0",
                &format!("--window-size={width},{height}"),
                &format!("--user-data-dir={}", profile.display()),
                "about:blank",
            ])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .map_err(|e| format!("cannot start {program}: {e}"))?;
        let address = Self::devtools_address(&profile)?;
        let (socket, _) =
            tungstenite::connect(&address).map_err(|e| format!("DevTools at {address}: {e}"))?;
        if let MaybeTlsStream::Plain(tcp) = socket.get_ref() {
            let _ = tcp.set_read_timeout(Some(Duration::from_millis(200)));
        }
        let mut browser = Browser {
            child,
            socket,
            session: String::new(),
            next_id: 0,
            profile,
        };
        let target =
            browser.command_to(None, "Target.createTarget", json!({"url": "about:blank"}))?;
        let target_id = target["targetId"].as_str().unwrap_or_default().to_owned();
        let attached = browser.command_to(
            None,
            "Target.attachToTarget",
            json!({"targetId": target_id, "flatten": true}),
        )?;
        browser.session = attached["sessionId"]
            .as_str()
            .ok_or("no DevTools session")?
            .to_owned();
        browser.command("Page.enable", json!({}))?;
        browser.viewport(width, height, false)?;
        Ok(browser)
    }

    /// The browser writes its DevTools port and path into the profile once it listens.
    fn devtools_address(profile: &Path) -> Result<String, String> {
        let file = profile.join("DevToolsActivePort");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Ok(text) = std::fs::read_to_string(&file) {
                let mut lines = text.lines();
                if let (Some(port), Some(path)) = (lines.next(), lines.next()) {
                    return Ok(format!("ws://127.0.0.1:{port}{path}"));
                }
            }
            if Instant::now() > deadline {
                return Err("the browser did not open its DevTools port".to_owned());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    fn command(&mut self, method: &str, params: Value) -> Result<Value, String> {
        let session = self.session.clone();
        self.command_to(Some(&session), method, params)
    }

    /// Sends a command and waits for its answer, skipping the events on the way.
    fn command_to(
        &mut self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        self.socket
            .send(Message::text(message.to_string()))
            .map_err(|e| format!("{method}: {e}"))?;
        let deadline = Instant::now() + COMMAND_TIMEOUT;
        loop {
            if Instant::now() > deadline {
                return Err(format!("{method}: no answer"));
            }
            let text = match self.socket.read() {
                Ok(Message::Text(text)) => text,
                Ok(_) => continue,
                Err(tungstenite::Error::Io(e))
                    if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) =>
                {
                    continue
                }
                Err(e) => return Err(format!("{method}: {e}")),
            };
            let answer: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
            if answer["id"] != json!(id) {
                continue;
            }
            if let Some(error) = answer.get("error") {
                return Err(format!("{method}: {error}"));
            }
            return Ok(answer["result"].clone());
        }
    }

    /// Sets the page's size; `mobile` for a phone's.
    pub fn viewport(&mut self, width: u32, height: u32, mobile: bool) -> Result<(), String> {
        self.command(
            "Emulation.setDeviceMetricsOverride",
            json!({"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile}),
        )
        .map(drop)
    }

    pub fn navigate(&mut self, url: &str) -> Result<(), String> {
        self.command("Page.navigate", json!({"url": url})).map(drop)
    }

    /// The value of a JavaScript expression in the page.
    pub fn eval(&mut self, expression: &str) -> Result<Value, String> {
        let result = self.command(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        )?;
        if let Some(e) = result.get("exceptionDetails") {
            return Err(format!("{expression}: {e}"));
        }
        Ok(result["result"]["value"].clone())
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

    /// Clicks the middle of the first element `selector` finds, with the mouse.
    pub fn click(&mut self, selector: &str) -> Result<(), String> {
        let quoted = serde_json::to_string(selector).map_err(|e| e.to_string())?;
        let centre = self.eval(&format!(
            "(() => {{ const e = document.querySelector({quoted}); if (!e) return null; \
             e.scrollIntoView({{block: 'center'}}); const r = e.getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]; }})()"
        ))?;
        let (Some(x), Some(y)) = (centre[0].as_f64(), centre[1].as_f64()) else {
            return Err(format!("nothing on the page matches {selector}"));
        };
        for kind in ["mousePressed", "mouseReleased"] {
            self.command(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            )?;
        }
        Ok(())
    }

    /// Saves what the page shows as a PNG.
    pub fn screenshot(&mut self, path: &Path) -> Result<(), String> {
        let shot = self.command("Page.captureScreenshot", json!({"format": "png"}))?;
        let data = shot["data"].as_str().ok_or("no screenshot data")?;
        let png = base64::engine::general_purpose::STANDARD
            .decode(data)
            .map_err(|e| e.to_string())?;
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        }
        std::fs::write(path, png).map_err(|e| format!("{}: {e}", path.display()))
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // The browser's helper processes share its process group.
        let _ = nix::sys::signal::killpg(
            nix::unistd::Pid::from_raw(self.child.id() as i32),
            nix::sys::signal::Signal::SIGKILL,
        );
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}
