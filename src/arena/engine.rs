//! Engine processes: spawning, line I/O with deadlines, ABOUT, START, move requests, END, kill.
//!
//! Each engine runs as a child process with three helper threads: a writer (so a brain that
//! stops reading its stdin can never block the arena), a reader that splits stdout into lines
//! (CR, LF or CR LF; invalid UTF-8 decoded lossily; time-stamped on arrival) and sends them over
//! a channel, and a stderr reader (into the I/O log when one is kept). Every wait on an engine
//! has a deadline, and an engine that misses one is killed, so the arena never hangs.
//!
//! While waiting for an answer the arena skips the lines a brain may print besides it
//! (protocol.md §1.1, §1.4): `MESSAGE`, `DEBUG`, `ERROR`, `UNKNOWN`, `INFO` (Rapfi's search
//! detail), `OK`, and ABOUT-style `name="…"` lines. The ABOUT answer is the first line that
//! contains `name=`, not the first line printed, so a start-up banner does not break it.
//!
//! What a brain says about trouble is passed on as warnings on the arena's stderr, each distinct
//! line once per engine process (at most [`MAX_NOTICES`] of them): its `ERROR` lines on stdout
//! and every line of its stderr. A brain that refuses an `INFO` (an `option.` it does not know,
//! a value out of range) plays on with its defaults, so without them a tuning match would
//! silently measure nothing.

use std::{
    fs::File,
    io::{self, BufWriter, Read, Write},
    path::{Path, PathBuf},
    process::{Child, Command, Stdio},
    sync::{mpsc, Arc, Mutex},
    thread,
    time::{Duration, Instant},
};

use log::{debug, warn};

use super::clock::TimeControl;

/// Longest engine output line kept; the rest is discarded.
pub const MAX_LINE_BYTES: usize = 64 * 1024;
/// How long an engine may take to exit after `END` before it is killed.
pub const END_GRACE: Duration = Duration::from_millis(1000);
/// How often [`Engine::request_move_watched`] asks whether to stop the engine at once.
pub const WATCH_INTERVAL: Duration = Duration::from_millis(50);

/// How to run one engine and what to tell it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineSpec {
    /// Display name (unique within a match).
    pub name: String,
    /// Program to run.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Working directory (default: the arena's).
    pub dir: Option<PathBuf>,
    /// `INFO key value` lines sent after each `START`, in order (max_memory, thread_num, …).
    pub infos: Vec<(String, String)>,
    /// This engine's time control.
    pub tc: TimeControl,
}

/// A shared log of everything sent to and received from the engines.
#[derive(Clone)]
pub struct IoLog {
    out: Arc<Mutex<BufWriter<File>>>,
    start: Instant,
}

impl IoLog {
    /// Creates (truncates) the log file.
    pub fn create(path: &Path) -> io::Result<IoLog> {
        Ok(IoLog {
            out: Arc::new(Mutex::new(BufWriter::new(File::create(path)?))),
            start: Instant::now(),
        })
    }

    /// Writes one line: time since start, engine tag, direction and text.
    pub fn line(&self, tag: &str, dir: &str, text: &str) {
        let ms = self.start.elapsed().as_millis();
        if let Ok(mut out) = self.out.lock() {
            let _ = writeln!(out, "{ms:>9} {tag} {dir} {text}");
            let _ = out.flush();
        }
    }
}

/// What came out of an engine.
#[derive(Debug)]
enum Event {
    Line(String, Instant),
    Closed,
}

/// Why an exchange with an engine failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The process could not be started, exited, or closed its output.
    Crash(String),
    /// No move before the hard deadline; the engine was killed.
    Timeout(String),
    /// No (or a refusing) answer to `START`.
    NoAnswer(String),
}

/// A move line and how long the engine took.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The line, trimmed.
    pub line: String,
    /// Wall time from the request to the line's arrival.
    pub elapsed: Duration,
    /// True when the engine had been sent `YXSTOP` (the answer came after the limit).
    pub late: bool,
}

/// True for lines a brain may print that are not an answer.
pub fn is_chatter(line: &str) -> bool {
    let first = line.split_whitespace().next().unwrap_or("");
    let first = first.to_ascii_uppercase();
    matches!(
        first.as_str(),
        "MESSAGE" | "DEBUG" | "ERROR" | "UNKNOWN" | "INFO" | "OK"
    ) || line.trim().is_empty()
        || is_about_line(line)
}

/// True for an `ERROR` line (any case): the brain refused a command.
fn is_refusal(line: &str) -> bool {
    line.get(..5)
        .map_or(false, |w| w.eq_ignore_ascii_case("ERROR"))
}

/// Most distinct lines passed on per engine process ([`Notices`]).
pub const MAX_NOTICES: usize = 20;

/// The distinct lines of one engine process passed on as warnings: its `ERROR` lines and its
/// stderr. Shared by the engine's two readers.
#[derive(Clone)]
struct Notices {
    tag: String,
    /// The lines passed on, and whether the cap was reached (the rest are not shown).
    seen: Arc<Mutex<(Vec<String>, bool)>>,
}

/// What makes two notices the same: the line without a leading `[…]` group (a log record's
/// time stamp and level, as env_logger writes them).
fn notice_key(line: &str) -> &str {
    match line.strip_prefix('[').and_then(|rest| rest.split_once(']')) {
        Some((_, after)) => after.trim_start(),
        None => line,
    }
}

impl Notices {
    /// Warns about `line` unless one like it was seen before or [`MAX_NOTICES`] lines were
    /// passed on.
    fn note(&self, line: &str) {
        let line = line.trim();
        let key = notice_key(line);
        let mut guard = match self.seen.lock() {
            Ok(guard) => guard,
            Err(_) => return,
        };
        let (lines, capped) = &mut *guard;
        if line.is_empty() || *capped || lines.iter().any(|l| notice_key(l) == key) {
            return;
        }
        if lines.len() == MAX_NOTICES {
            warn!("{}: further stderr and ERROR lines not shown", self.tag);
            *capped = true;
        } else {
            warn!("{}: {line}", self.tag);
            lines.push(line.to_string());
        }
    }

    fn lines(&self) -> Vec<String> {
        self.seen.lock().map(|s| s.0.clone()).unwrap_or_default()
    }
}

/// How long the arena waits for a `name=` line after a plain-text ABOUT answer.
pub const PLAIN_ABOUT_GRACE: Duration = Duration::from_millis(300);

/// True for an ABOUT-style line (`name="…", …`).
pub fn is_about_line(line: &str) -> bool {
    line.to_ascii_lowercase().contains("name=")
}

/// Extracts `name` (and `version`, if any) from an ABOUT answer.
pub fn parse_about(line: &str) -> Option<String> {
    let lower = line.to_ascii_lowercase();
    let value = |key: &str| -> Option<String> {
        let at = lower.find(&format!("{key}="))? + key.len() + 1;
        let rest = &line[at..];
        if let Some(quoted) = rest.strip_prefix('"') {
            quoted.find('"').map(|end| quoted[..end].to_string())
        } else {
            rest.split(|c: char| c == ',' || c.is_whitespace())
                .next()
                .map(str::to_string)
        }
    };
    let name = value("name")?;
    Some(match value("version") {
        Some(v) if !v.is_empty() => format!("{name} {v}"),
        _ => name,
    })
}

/// A running engine process.
pub struct Engine {
    tag: String,
    child: Child,
    to_engine: mpsc::Sender<String>,
    from_engine: mpsc::Receiver<Event>,
    log: Option<IoLog>,
    alive: bool,
    about: Option<String>,
    notices: Notices,
}

/// Reads the engine's stdout (lines go to `tx`, its `ERROR` lines also to `notices`) or its
/// stderr (lines go to `notices`).
fn reader_thread<R: Read + Send + 'static>(
    mut input: R,
    tx: mpsc::Sender<Event>,
    tag: String,
    log: Option<IoLog>,
    notices: Notices,
    stderr: bool,
) {
    let _ = thread::Builder::new()
        .name(format!("arena-read-{tag}"))
        .spawn(move || {
            let mut buf = [0u8; 4096];
            let mut line: Vec<u8> = Vec::new();
            loop {
                let n = match input.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let at = Instant::now();
                for &b in &buf[..n] {
                    if b == b'\n' || b == b'\r' {
                        if !line.is_empty() {
                            let text = String::from_utf8_lossy(&line).into_owned();
                            line.clear();
                            if let Some(log) = &log {
                                log.line(&tag, if stderr { "!" } else { "<" }, &text);
                            }
                            if stderr || is_refusal(text.trim()) {
                                notices.note(&text);
                            }
                            if !stderr && tx.send(Event::Line(text, at)).is_err() {
                                return;
                            }
                        }
                    } else if line.len() < MAX_LINE_BYTES {
                        line.push(b);
                    }
                }
            }
            if !stderr {
                let _ = tx.send(Event::Closed);
            }
        });
}

impl Engine {
    /// Starts the engine described by `spec`. `tag` names it in the I/O log.
    pub fn spawn(spec: &EngineSpec, tag: &str, log: Option<IoLog>) -> io::Result<Engine> {
        let mut program = PathBuf::from(&spec.program);
        // A relative path with a directory part is taken relative to the arena's directory,
        // also when the engine gets another working directory.
        if spec.program.contains('/') && program.is_relative() {
            if let Ok(abs) = program.canonicalize() {
                program = abs;
            }
        }
        let mut cmd = Command::new(&program);
        cmd.args(&spec.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if let Some(dir) = &spec.dir {
            cmd.current_dir(dir);
        }
        let mut child = cmd.spawn()?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| io::Error::new(io::ErrorKind::Other, "no stdout pipe"))?;
        let mut stdin = child
            .stdin
            .take()
            .ok_or_else(|| io::Error::new(io::ErrorKind::Other, "no stdin pipe"))?;
        let (tx, from_engine) = mpsc::channel();
        let notices = Notices {
            tag: tag.to_string(),
            seen: Arc::new(Mutex::new((Vec::new(), false))),
        };
        reader_thread(
            stdout,
            tx.clone(),
            tag.to_string(),
            log.clone(),
            notices.clone(),
            false,
        );
        if let Some(stderr) = child.stderr.take() {
            reader_thread(
                stderr,
                tx,
                tag.to_string(),
                log.clone(),
                notices.clone(),
                true,
            );
        }
        let (to_engine, rx) = mpsc::channel::<String>();
        let _ = thread::Builder::new()
            .name(format!("arena-write-{tag}"))
            .spawn(move || {
                for line in rx {
                    if stdin.write_all(line.as_bytes()).is_err()
                        || stdin.write_all(b"\n").is_err()
                        || stdin.flush().is_err()
                    {
                        break;
                    }
                }
            });
        if let Some(log) = &log {
            log.line(tag, "*", &format!("started {}", program.display()));
        }
        Ok(Engine {
            tag: tag.to_string(),
            child,
            to_engine,
            from_engine,
            log,
            alive: true,
            about: None,
            notices,
        })
    }

    /// True until the engine is known to have exited or been killed.
    pub fn is_alive(&mut self) -> bool {
        if self.alive {
            if let Ok(Some(_)) = self.child.try_wait() {
                self.alive = false;
            }
        }
        self.alive
    }

    /// The engine's ABOUT answer (`name version`), once [`Engine::about`] got one.
    pub fn about_text(&self) -> Option<&str> {
        self.about.as_deref()
    }

    /// Sends one line.
    pub fn send(&mut self, line: &str) {
        if let Some(log) = &self.log {
            log.line(&self.tag, ">", line);
        }
        if self.to_engine.send(line.to_string()).is_err() {
            self.alive = false;
        }
    }

    /// Discards lines already received (stale output from an earlier exchange).
    pub fn drain(&mut self) {
        while let Ok(event) = self.from_engine.try_recv() {
            match event {
                Event::Line(text, _) => debug!("{}: stale line `{text}` dropped", self.tag),
                Event::Closed => {
                    self.alive = false;
                    break;
                }
            }
        }
    }

    /// The next line before `deadline`; `Err(true)` if the output closed, `Err(false)` on
    /// timeout.
    fn next_line(&mut self, deadline: Instant) -> Result<(String, Instant), bool> {
        let now = Instant::now();
        let wait = deadline.saturating_duration_since(now);
        match self.from_engine.recv_timeout(wait) {
            Ok(Event::Line(text, at)) => Ok((text, at)),
            Ok(Event::Closed) | Err(mpsc::RecvTimeoutError::Disconnected) => {
                self.alive = false;
                Err(true)
            }
            Err(mpsc::RecvTimeoutError::Timeout) => Err(false),
        }
    }

    /// The distinct `ERROR` and stderr lines passed on so far, in order of arrival.
    pub fn notices(&self) -> Vec<String> {
        self.notices.lines()
    }

    /// Describes how the process ended, for a crash report.
    fn exit_description(&mut self) -> String {
        // Give a process that closed its output a moment to exit so its status can be shown.
        for _ in 0..20 {
            if let Ok(Some(status)) = self.child.try_wait() {
                self.alive = false;
                return format!("exited ({status})");
            }
            thread::sleep(Duration::from_millis(5));
        }
        self.kill();
        "closed its output".to_string()
    }

    /// Sends `ABOUT` and waits until `deadline` for an answer containing `name=`; other lines
    /// (banners, MESSAGE) are skipped. Returns the name and version, or `None` if the engine
    /// answered UNKNOWN/ERROR or nothing.
    ///
    /// An engine whose ABOUT answer is plain text (no `name=`) is not made to wait out the
    /// whole deadline: once such a line has arrived, the arena waits [`PLAIN_ABOUT_GRACE`] more
    /// for a `name=` line and then takes the plain line as the name.
    pub fn about(&mut self, mut deadline: Instant) -> Result<Option<String>, Failure> {
        self.send("ABOUT");
        let mut plain: Option<String> = None;
        loop {
            match self.next_line(deadline) {
                Ok((line, _)) => {
                    if is_about_line(&line) {
                        self.about = parse_about(&line);
                        return Ok(self.about.clone());
                    }
                    let upper = line.trim_start().to_ascii_uppercase();
                    if upper.starts_with("UNKNOWN") || upper.starts_with("ERROR") {
                        return Ok(None);
                    }
                    let chatter = ["MESSAGE", "DEBUG", "OK"]
                        .iter()
                        .any(|p| upper.starts_with(p));
                    if plain.is_none() && !chatter && !line.trim().is_empty() {
                        plain = Some(line.trim().chars().take(60).collect());
                        deadline = deadline.min(Instant::now() + PLAIN_ABOUT_GRACE);
                    }
                }
                Err(true) => {
                    let how = self.exit_description();
                    return Err(Failure::Crash(format!("{how} before answering ABOUT")));
                }
                Err(false) => {
                    self.about = plain;
                    return Ok(self.about.clone());
                }
            }
        }
    }

    /// Sends `START size` and waits until `deadline` for `OK`.
    pub fn start(&mut self, size: usize, deadline: Instant) -> Result<(), Failure> {
        self.drain();
        if !self.is_alive() {
            return Err(Failure::Crash("not running at START".to_string()));
        }
        self.send(&format!("START {size}"));
        loop {
            match self.next_line(deadline) {
                Ok((line, _)) => {
                    let t = line.trim();
                    if t.eq_ignore_ascii_case("OK") {
                        return Ok(());
                    }
                    if is_refusal(t) {
                        return Err(Failure::NoAnswer(format!("refused START {size}: {t}")));
                    }
                    if !is_chatter(t) {
                        debug!("{}: `{t}` while waiting for OK", self.tag);
                    }
                }
                Err(true) => {
                    let how = self.exit_description();
                    return Err(Failure::Crash(format!("{how} at START")));
                }
                Err(false) => {
                    self.kill();
                    return Err(Failure::NoAnswer(format!("no OK to START {size}")));
                }
            }
        }
    }

    /// Sends `lines` (the last one asks for a move) and waits for the answer: `YXSTOP` at
    /// `limit`, kill at `limit + tolerance`. Non-answer lines are skipped.
    pub fn request_move(
        &mut self,
        lines: &[String],
        limit: Duration,
        tolerance: Duration,
    ) -> Result<Answer, Failure> {
        self.request_move_watched(lines, limit, tolerance, &mut |_| {}, &|| false)
    }

    /// [`Engine::request_move`] for a front end: every non-answer line (`MESSAGE` and the like)
    /// is passed to `on_line` as it arrives, and once `stop_now` returns true (it is polled every
    /// [`WATCH_INTERVAL`]) the engine is sent `YXSTOP` and has `tolerance` left to answer.
    pub fn request_move_watched(
        &mut self,
        lines: &[String],
        limit: Duration,
        tolerance: Duration,
        on_line: &mut dyn FnMut(&str),
        stop_now: &dyn Fn() -> bool,
    ) -> Result<Answer, Failure> {
        self.drain();
        if !self.is_alive() {
            return Err(Failure::Crash("not running".to_string()));
        }
        for line in lines {
            self.send(line);
        }
        let start = Instant::now();
        let soft = start + limit;
        let mut hard = soft + tolerance;
        let mut stopped = false;
        loop {
            if !stopped && stop_now() {
                self.send("YXSTOP");
                stopped = true;
                hard = hard.min(Instant::now() + tolerance);
            }
            let deadline = if stopped { hard } else { soft };
            match self.next_line(deadline.min(Instant::now() + WATCH_INTERVAL)) {
                Ok((line, at)) => {
                    if is_chatter(&line) {
                        on_line(&line);
                        continue;
                    }
                    let elapsed = at.saturating_duration_since(start);
                    return Ok(Answer {
                        line: line.trim().to_string(),
                        elapsed,
                        late: elapsed > limit,
                    });
                }
                Err(true) => {
                    let how = self.exit_description();
                    return Err(Failure::Crash(format!(
                        "{how} after {} ms of thinking",
                        start.elapsed().as_millis()
                    )));
                }
                Err(false) if Instant::now() < deadline => {}
                Err(false) if !stopped => {
                    self.send("YXSTOP");
                    stopped = true;
                }
                Err(false) => {
                    self.kill();
                    return Err(Failure::Timeout(format!(
                        "no move within {} ms (limit {} ms + tolerance {} ms); killed",
                        (limit + tolerance).as_millis(),
                        limit.as_millis(),
                        tolerance.as_millis()
                    )));
                }
            }
        }
    }

    /// Kills the process (if still running) and reaps it.
    pub fn kill(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
        if self.alive {
            if let Some(log) = &self.log {
                log.line(&self.tag, "*", "killed");
            }
        }
        self.alive = false;
    }

    /// Sends `END`, waits up to [`END_GRACE`] for the process to exit, then kills it.
    pub fn quit(&mut self) {
        if self.is_alive() {
            self.send("END");
            let until = Instant::now() + END_GRACE;
            while Instant::now() < until {
                if let Ok(Some(_)) = self.child.try_wait() {
                    self.alive = false;
                    return;
                }
                thread::sleep(Duration::from_millis(5));
            }
            warn!(
                "{}: still running {:?} after END; killed",
                self.tag, END_GRACE
            );
        }
        self.kill();
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_and_stderr_are_passed_on_once_each() {
        let script = "read a; echo 'ERROR no param x'; echo '[t1 WARN] x' >&2; read b; \
                      echo 'error NO PARAM X'; echo 'ERROR no param x'; echo '[t2 WARN] x' >&2; \
                      echo 'MESSAGE ERRORS none'; sleep 0.2; for i in $(seq 30); do echo \"s$i\" >&2; done; \
                      sleep 0.2; echo 7,7; read c";
        let spec = EngineSpec {
            name: "r".to_string(),
            program: "bash".to_string(),
            args: vec!["-c".to_string(), script.to_string()],
            dir: None,
            infos: Vec::new(),
            tc: TimeControl {
                turn_ms: 1000,
                game_ms: 0,
                inc_ms: 0,
            },
        };
        let mut engine = Engine::spawn(&spec, "r", None).expect("bash runs");
        let deadline = Instant::now() + Duration::from_secs(10);
        engine.send("INFO param_x 1");
        let first = engine.next_line(deadline).map(|l| l.0);
        assert_eq!(first.as_deref(), Ok("ERROR no param x"));
        engine.send("INFO param_x 2");
        while let Ok((line, _)) = engine.next_line(deadline) {
            if line == "7,7" {
                break;
            }
        }
        let notices = engine.notices();
        assert_eq!(notices.len(), MAX_NOTICES, "{notices:?}");
        let count = |l: &str| notices.iter().filter(|n| *n == l).count();
        assert_eq!(count("ERROR no param x"), 1, "{notices:?}");
        assert_eq!(count("error NO PARAM X"), 1, "{notices:?}");
        assert_eq!(count("[t1 WARN] x"), 1, "{notices:?}");
        assert_eq!(count("[t2 WARN] x"), 0, "{notices:?}");
        assert_eq!(count("MESSAGE ERRORS none"), 0, "{notices:?}");
        assert!(!notices.iter().any(|n| n == "s30"), "{notices:?}");
        engine.quit();
    }

    #[test]
    fn chatter_lines() {
        for line in [
            "MESSAGE depth 4",
            "DEBUG x",
            "message lower case",
            "ERROR unknown info key",
            "UNKNOWN command",
            "INFO PV 7,7",
            "OK",
            "",
            "   ",
            "name=\"x\", version=\"1\"",
        ] {
            assert!(is_chatter(line), "{line}");
        }
        for line in ["7,7", "hello world", "SUGGEST 7,7", "MESSAGES7,7"] {
            assert!(!is_chatter(line), "{line}");
        }
    }

    #[test]
    fn about_answers() {
        assert_eq!(
            parse_about(r#"name="wuzi", version="0.1.0", author="x", country="y""#).as_deref(),
            Some("wuzi 0.1.0")
        );
        assert_eq!(
            parse_about(r#"author="a, b", Name="Some Brain""#).as_deref(),
            Some("Some Brain")
        );
        assert_eq!(
            parse_about("name=plain, version=2").as_deref(),
            Some("plain 2")
        );
        assert_eq!(parse_about("no answer here"), None);
    }
}
