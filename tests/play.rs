//! End-to-end checks of `pbrain-wuzi play` through its JSON API: each test starts a real server
//! on a free loopback port (`wuzi::play::serve`) and talks HTTP to it, as the page and a second
//! machine would. They cover the rules' wins, renju's refused fouls, the answers to bad
//! requests (which must leave the game as it was), a network game between two seats and a
//! spectator with its consent handshakes, saving and reopening PSQ and SGF records, misbehaving
//! Gomocup brains (a fake brain script), and wuzi's replies arriving through the long poll.

use std::{
    thread,
    time::{Duration, Instant},
};

use serde_json::{json, Value};
use wuzi::play;

/// The arena's fake brain (its modes are listed at its top).
const FAKE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/arena/testdata/fake-brain.sh"
);
/// The fake brain behind a wrapper that writes the process id to a file first.
const PID_BRAIN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pid-brain.sh");
/// A brain that plays the listed squares first.
const LIST_BRAIN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/list-brain.sh");
/// How long a test waits for a computer before it fails.
const PATIENCE: Duration = Duration::from_secs(20);
/// Client timeout of one request, above the server's long-poll wait.
const HTTP_TIMEOUT_S: u64 = 60;

/// A server on a free loopback port, stopped when dropped.
struct Server {
    running: play::server::Running,
    base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.running.shutdown();
    }
}

/// A square as JSON gives it.
type Sq = (i64, i64);

fn sq(v: &Value) -> Sq {
    match v.as_array().map(Vec::as_slice) {
        Some([x, y]) => (x.as_i64().expect("x"), y.as_i64().expect("y")),
        _ => panic!("not a square: {v}"),
    }
}

fn squares(v: &Value) -> Vec<Sq> {
    v.as_array()
        .unwrap_or_else(|| panic!("not a list of squares: {v}"))
        .iter()
        .map(sq)
        .collect()
}

/// The stones on the board of a game view (the history up to the cursor).
fn board(view: &Value) -> Vec<Sq> {
    let mut moves = squares(&view["moves"]);
    moves.truncate(cursor(view));
    moves
}

fn cursor(view: &Value) -> usize {
    view["cursor"].as_u64().expect("cursor") as usize
}

fn version(view: &Value) -> u64 {
    view["version"].as_u64().expect("version")
}

/// What a refused request must leave as it was.
fn snapshot(view: &Value) -> Value {
    json!({
        "moves": view["moves"],
        "cursor": view["cursor"],
        "version": view["version"],
        "to_move": view["to_move"],
        "result": view["result"],
        "request": view["request"],
        "paused": view["paused"],
    })
}

/// Checks a result: the winner (`None` for a draw) and the reason.
fn assert_result(view: &Value, winner: Option<&str>, reason: &str) {
    let result = &view["result"];
    assert!(result.is_object(), "no result: {view}");
    assert_eq!(result["winner"].as_str(), winner, "{result}");
    assert_eq!(result["reason"], reason, "{result}");
    assert!(view["to_move"].is_null(), "{view}");
}

/// Checks a win by five along `line` (in any order).
fn assert_five(view: &Value, winner: &str, line: &[Sq]) {
    assert_result(view, Some(winner), "five");
    let mut got = squares(&view["result"]["line"]);
    let mut want = line.to_vec();
    got.sort_unstable();
    want.sort_unstable();
    assert_eq!(got, want, "{}", view["result"]);
}

/// Moves alternating from black, black's `b` interleaved with white's `w` (b has one more, or
/// as many).
fn alternate(b: &[Sq], w: &[Sq]) -> Vec<Sq> {
    assert!(b.len() == w.len() || b.len() == w.len() + 1);
    let mut out = Vec::new();
    for (i, &m) in b.iter().enumerate() {
        out.push(m);
        if let Some(&r) = w.get(i) {
            out.push(r);
        }
    }
    out
}

fn row(y: i64, xs: &[i64]) -> Vec<Sq> {
    xs.iter().map(|&x| (x, y)).collect()
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// `--engine` words for the bash script `script` with `args`, named `name`.
fn brain(script: &str, args: &[&str], name: &str) -> Vec<String> {
    let mut words = strings(&["--engine", "cmd=bash", &format!("arg={script}")]);
    words.extend(args.iter().map(|a| format!("arg={a}")));
    words.push(format!("name={name}"));
    words
}

impl Server {
    /// Starts a server with one search thread, a small hash, and `extra` options.
    fn start(extra: &[String]) -> Server {
        let mut args = strings(&["--listen", "127.0.0.1:0", "--threads", "1", "--hash", "1"]);
        args.extend(extra.iter().cloned());
        let options = play::parse_options(&args)
            .expect("the options parse")
            .expect("not --help");
        let running = play::serve(&options).expect("the server starts");
        let base = format!("http://{}", running.addr);
        Server { running, base }
    }

    fn raw(&self, method: minreq::Method, path: &str, body: Option<Vec<u8>>) -> (u16, Vec<u8>) {
        let mut request = minreq::Request::new(method, format!("{}{path}", self.base))
            .with_timeout(HTTP_TIMEOUT_S);
        if let Some(body) = body {
            request = request
                .with_header("Content-Type", "application/json")
                .with_body(body);
        }
        let response = request
            .send()
            .unwrap_or_else(|e| panic!("{path}: no answer: {e}"));
        (response.status_code, response.into_bytes())
    }

    /// A request whose answer is JSON (every API answer, errors included, is).
    fn call(&self, method: minreq::Method, path: &str, body: Option<Vec<u8>>) -> (u16, Value) {
        let (status, bytes) = self.raw(method, path, body);
        let value: Value = serde_json::from_slice(&bytes).unwrap_or_else(|e| {
            panic!(
                "{path}: answer {status} is not JSON ({e}): {}",
                String::from_utf8_lossy(&bytes)
            )
        });
        if status >= 400 {
            assert!(value["error"].is_string(), "{path}: {status} {value}");
        }
        (status, value)
    }

    fn get(&self, path: &str) -> (u16, Value) {
        self.call(minreq::Method::Get, path, None)
    }

    fn post(&self, path: &str, body: &Value) -> (u16, Value) {
        self.call(
            minreq::Method::Post,
            path,
            Some(body.to_string().into_bytes()),
        )
    }

    /// Creates a game; returns it with the seats' secrets (people's seats only).
    fn create(&self, body: Value) -> Game<'_> {
        let (status, created) = self.post("/api/games", &body);
        assert_eq!(status, 201, "{body}: {created}");
        let token = |s: usize| created["seats"][s]["token"].as_str().map(str::to_string);
        Game {
            server: self,
            id: created["id"].as_str().expect("an id").to_string(),
            tokens: [token(0), token(1)],
        }
    }

    /// A game at one screen (two local people, black on seat 0) under `rule`.
    fn local(&self, rule: &str) -> Game<'_> {
        let game = self.create(json!({ "rule": rule }));
        assert!(game.tokens.iter().all(Option::is_some), "{:?}", game.tokens);
        game
    }
}

/// The fake brain through [`PID_BRAIN`], which leaves its process id in a file of its own.
struct PidBrain {
    file: std::path::PathBuf,
}

impl PidBrain {
    fn new(tag: &str) -> PidBrain {
        let name = format!("wuzi-play-{tag}-{}.pid", std::process::id());
        let file = std::env::temp_dir().join(name);
        let _ = std::fs::remove_file(&file);
        PidBrain { file }
    }

    /// `--engine` words for it in `mode`, named as the mode.
    fn engine(&self, mode: &str) -> Vec<String> {
        let file = self.file.display().to_string();
        brain(PID_BRAIN, &[&file, mode], mode)
    }

    /// Checks that the brain ran and is no longer running (killed and reaped).
    fn assert_gone(&self) {
        let pid = std::fs::read_to_string(&self.file).expect("the brain wrote its pid");
        let pid: u32 = pid.trim().parse().expect("a pid");
        if cfg!(target_os = "linux") {
            let proc_dir = std::path::PathBuf::from(format!("/proc/{pid}"));
            assert!(!proc_dir.exists(), "the brain {pid} still runs");
        }
    }
}

impl Drop for PidBrain {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.file);
    }
}

/// A game on a server and the secrets of its people's seats.
struct Game<'a> {
    server: &'a Server,
    id: String,
    tokens: [Option<String>; 2],
}

impl Game<'_> {
    fn token(&self, seat: usize) -> &str {
        self.tokens[seat].as_deref().expect("a person's seat")
    }

    fn path(&self, tail: &str) -> String {
        format!("/api/games/{}{tail}", self.id)
    }

    /// The game as the holder of `token` sees it (none: a spectator).
    fn view(&self, token: Option<&str>) -> Value {
        let tail = token.map_or(String::new(), |t| format!("?seat={t}"));
        let (status, view) = self.server.get(&self.path(&tail));
        assert_eq!(status, 200, "{view}");
        view
    }

    /// A long poll: the game once its version differs from `since`.
    fn poll(&self, token: Option<&str>, since: u64) -> Value {
        let seat = token.map_or(String::new(), |t| format!("&seat={t}"));
        let (status, view) = self
            .server
            .get(&self.path(&format!("?since={since}{seat}")));
        assert_eq!(status, 200, "{view}");
        view
    }

    /// Long-polls until `done` holds, failing after [`PATIENCE`].
    fn wait_for(&self, token: Option<&str>, what: &str, done: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + PATIENCE;
        let mut view = self.view(token);
        while !done(&view) {
            assert!(Instant::now() < deadline, "no {what} in time: {view}");
            view = self.poll(token, version(&view));
        }
        view
    }

    fn wait_result(&self) -> Value {
        self.wait_for(None, "result", |v| v["result"].is_object())
    }

    /// `POST /api/games/{id}/{action}` with `{"seat": token}` and the fields of `extra`.
    fn act(&self, token: &str, action: &str, extra: Value) -> (u16, Value) {
        let mut body = json!({ "seat": token });
        if let (Some(body), Some(extra)) = (body.as_object_mut(), extra.as_object()) {
            body.extend(extra.clone());
        }
        self.server.post(&self.path(&format!("/{action}")), &body)
    }

    /// An action that must succeed; returns the game after it.
    fn ok(&self, token: &str, action: &str, extra: Value) -> Value {
        let (status, view) = self.act(token, action, extra.clone());
        assert_eq!(status, 200, "{action} {extra}: {view}");
        view
    }

    fn play(&self, token: &str, (x, y): Sq) -> Value {
        self.ok(token, "move", json!({ "x": x, "y": y }))
    }

    /// Plays `moves` at one screen, each with the secret of the side to move (black: seat 0);
    /// returns the game after the last.
    fn play_local(&self, moves: &[Sq]) -> Value {
        let mut view = self.view(None);
        for &m in moves {
            let seat = match view["to_move"].as_str() {
                Some("black") => 0,
                Some("white") => 1,
                _ => panic!("nobody is to move before {m:?}: {view}"),
            };
            view = self.play(self.token(seat), m);
        }
        view
    }

    /// Sends a request that must be refused with `status`, and checks that the game is as it
    /// was.
    fn refused(&self, status: u16, send: impl FnOnce() -> (u16, Value)) -> Value {
        let before = snapshot(&self.view(None));
        let (got, answer) = send();
        assert_eq!(got, status, "{answer}");
        assert_eq!(
            snapshot(&self.view(None)),
            before,
            "changed by a refused request"
        );
        answer
    }

    /// An action that must be refused with `status`, leaving the game as it was.
    fn refused_act(&self, status: u16, token: &str, action: &str, extra: Value) -> Value {
        self.refused(status, || self.act(token, action, extra))
    }

    /// Waits until `seat`'s long poll has seen `mover` play `at`, the poll begun before the
    /// move; returns what the poll answered.
    fn poll_across(&self, seat: usize, mover: usize, at: Sq) -> Value {
        let token = self.token(seat);
        let since = version(&self.view(Some(token)));
        let answered = thread::scope(|s| {
            let poll = s.spawn(|| self.poll(Some(token), since));
            // Only to let the poll reach the server first; the checks below hold either way.
            thread::sleep(Duration::from_millis(50));
            self.play(self.token(mover), at);
            poll.join().expect("the poll")
        });
        assert!(version(&answered) > since, "{answered}");
        assert_eq!(board(&answered).last(), Some(&at), "{answered}");
        answered
    }
}

#[test]
fn every_rule_wins_by_five() {
    let server = Server::start(&[]);
    // Black: a column from (2,3) down; white: a diagonal from (5,5) while black scatters.
    let column: Vec<Sq> = (3..8).map(|y| (2, y)).collect();
    let diagonal: Vec<Sq> = (5..10).map(|i| (i, i)).collect();
    let scattered = [(10, 0), (12, 0), (10, 14), (12, 14), (14, 7)];
    for rule in ["freestyle", "standard", "renju", "caro8", "caro9"] {
        let game = server.local(rule);
        let view = game.play_local(&alternate(&column, &scattered[..4]));
        assert_eq!(view["rule"], rule);
        assert_five(&view, "black", &column);
        assert!(
            view["result"]["text"]
                .as_str()
                .map_or(false, |t| t.contains("black")),
            "{view}"
        );
        // The game is over: no more moves.
        game.refused_act(409, game.token(1), "move", json!({"x": 0, "y": 0}));

        let game = server.local(rule);
        let view = game.play_local(&alternate(&scattered, &diagonal));
        assert_five(&view, "white", &diagonal);
    }
}

#[test]
fn one_screen_ends_by_full_board_resignation_agreement_and_the_clock() {
    let server = Server::start(&[]);
    // 5×5 coloured by (x / 2 + y) % 2 has no five: filled, the board is a draw.
    let (mut black, mut white) = (Vec::new(), Vec::new());
    for y in 0..5 {
        for x in 0..5 {
            if (x / 2 + y) % 2 == 0 {
                black.push((x, y));
            } else {
                white.push((x, y));
            }
        }
    }
    let game = server.create(json!({"size": 5}));
    assert_result(
        &game.play_local(&alternate(&black, &white)),
        None,
        "full board",
    );

    // At one screen the side to move resigns, whichever secret asks; a draw needs no answer.
    let game = server.local("standard");
    game.play_local(&[(7, 7)]);
    assert_result(
        &game.ok(game.token(0), "resign", json!({})),
        Some("black"),
        "resignation",
    );
    let game = server.local("standard");
    let view = game.ok(game.token(0), "request", json!({"kind": "draw"}));
    assert_result(&view, None, "agreement");

    // 100 ms a move and nobody moves: black loses on time.
    let game = server.create(json!({"clock": {"turn_ms": 100}}));
    assert_result(&game.wait_result(), Some("white"), "time forfeit");
}

#[test]
fn overlines_and_blocked_fives_follow_the_rule() {
    let server = Server::start(&[]);
    // Black 2,3,4 and 6,7 on row 7 (white on row 9, no threat), then 5,7 makes six.
    let black = row(7, &[2, 3, 4, 6, 7]);
    let white = row(9, &[2, 3, 4, 9, 11]);
    let six = row(7, &[2, 3, 4, 5, 6, 7]);
    for (rule, wins) in [
        ("freestyle", true),
        ("standard", false),
        ("caro8", true),
        ("caro9", false),
    ] {
        let game = server.local(rule);
        game.play_local(&alternate(&black, &white));
        let view = game.play_local(&[(5, 7)]);
        if wins {
            assert_five(&view, "black", &six);
        } else {
            assert!(view["result"].is_null(), "{rule}: {view}");
            assert_eq!(view["to_move"], "white", "{rule}");
        }
    }

    // Black 3..7 on row 7 with white stones at both ends: a win except in caro.
    let black = row(7, &[3, 4, 5, 6, 7]);
    let white = [(2, 7), (8, 7), (0, 0), (14, 0)];
    for (rule, wins) in [
        ("freestyle", true),
        ("standard", true),
        ("renju", true),
        ("caro8", false),
        ("caro9", false),
    ] {
        let game = server.local(rule);
        let view = game.play_local(&alternate(&black, &white));
        if wins {
            assert_five(&view, "black", &black);
        } else {
            assert!(view["result"].is_null(), "{rule}: {view}");
            assert_eq!(view["to_move"], "white", "{rule}");
            // The game goes on (white first), and an open five wins.
            let open = row(12, &[3, 4, 5, 6, 7]);
            let scattered = [(14, 14), (0, 3), (14, 3), (0, 10), (14, 10)];
            let view = game.play_local(&alternate(&scattered, &open));
            assert_five(&view, "black", &open);
        }
    }
}

#[test]
fn renju_refuses_black_fouls() {
    let server = Server::start(&[]);
    let game = server.local("renju");
    // Black (6,7) (7,7) and (8,6) (8,5): (8,7) makes two open threes. Black (2,12) (3,12)
    // (4,12) and (6,12) (7,12): (5,12) makes six. White plays the right edge.
    let black = [
        (6, 7),
        (7, 7),
        (8, 6),
        (8, 5),
        (2, 12),
        (3, 12),
        (4, 12),
        (6, 12),
        (7, 12),
    ];
    let white = [
        (14, 0),
        (14, 2),
        (14, 4),
        (14, 6),
        (14, 8),
        (14, 10),
        (14, 12),
        (14, 14),
    ];
    let view = game.play_local(&alternate(&black, &white[..8]));
    assert_eq!(view["to_move"], "white");
    assert_eq!(
        view["forbidden"],
        json!([]),
        "white has no forbidden squares"
    );
    let view = game.play_local(&[(14, 13)]);
    let forbidden = squares(&view["forbidden"]);
    for foul in [(8, 7), (5, 12)] {
        assert!(forbidden.contains(&foul), "{foul:?} not in {forbidden:?}");
        let answer = game.refused_act(
            422,
            game.token(0),
            "move",
            json!({"x": foul.0, "y": foul.1}),
        );
        assert!(
            answer["error"]
                .as_str()
                .map_or(false, |e| e.contains("forbidden")),
            "{answer}"
        );
    }
    // A legal square is still taken.
    let view = game.play_local(&[(0, 14)]);
    assert_eq!(view["to_move"], "white");
    assert!(view["result"].is_null());
}

#[test]
fn bad_moves_and_actions_change_nothing() {
    let server = Server::start(&[]);
    let game = server.local("freestyle");
    game.play_local(&[(7, 7), (8, 8)]);
    let (black, white) = (game.token(0), game.token(1));
    let at = |x: i64, y: i64| json!({ "x": x, "y": y });
    // Black to move: white's secret may not move now.
    game.refused_act(409, white, "move", at(0, 0));
    game.refused_act(422, black, "move", at(8, 8));
    game.refused_act(422, black, "move", at(15, 0));
    game.refused_act(422, black, "move", at(0, -1));
    game.refused_act(400, black, "move", json!({ "x": 3 }));
    game.refused_act(403, "", "move", at(0, 0));
    game.refused_act(403, "0123456789abcdef0123456789abcdef", "move", at(0, 0));
    game.refused_act(403, "", "undo", json!({}));
    game.refused_act(404, black, "teleport", at(0, 0));
    game.refused_act(409, black, "redo", json!({}));
    game.refused_act(400, black, "goto", json!({ "ply": 3 }));
    game.refused_act(400, black, "request", json!({ "kind": "coffee" }));
    game.refused_act(409, black, "respond", json!({ "accept": true }));
    game.refused_act(409, black, "stop", json!({}));

    let move_path = game.path("/move");
    let post_raw = |path: &str, body: Vec<u8>| server.call(minreq::Method::Post, path, Some(body));
    game.refused(400, || post_raw(&move_path, b"{\"seat\": ".to_vec()));
    game.refused(400, || post_raw(&move_path, b"[1, 2]".to_vec()));
    game.refused(400, || post_raw(&move_path, Vec::new()));
    game.refused(400, || server.post(&move_path, &at(1, 1)));
    let mut big = format!("{{\"seat\":\"{black}\",\"x\":1,\"y\":1,\"text\":\"").into_bytes();
    big.resize(400 * 1024, b'a');
    big.extend_from_slice(b"\"}");
    game.refused(413, || post_raw(&move_path, big.clone()));
    game.refused(413, || post_raw("/api/games", big.clone()));
    game.refused(400, || server.get(&game.path("?since=soon")));

    // Routes and methods.
    let no_game = "/api/games/0000000000000000";
    game.refused(404, || server.get(no_game));
    game.refused(404, || server.post(&format!("{no_game}/move"), &at(1, 1)));
    game.refused(404, || server.get(&format!("{no_game}/record.psq")));
    game.refused(404, || server.get(&game.path("/record.txt")));
    game.refused(404, || server.get("/api/nothing"));
    game.refused(404, || server.get(&game.path("/move/again")));
    game.refused(404, || server.get("/no-such-page"));
    game.refused(405, || {
        server.call(minreq::Method::Delete, &game.path(""), None)
    });
    game.refused(405, || server.call(minreq::Method::Put, &move_path, None));
    game.refused(405, || server.post("/api/info", &json!({})));
    game.refused(405, || server.get("/api/games"));
    game.refused(405, || server.post("/", &json!({})));

    // The game still takes good moves.
    let view = game.play_local(&[(0, 0)]);
    assert_eq!(board(&view), vec![(7, 7), (8, 8), (0, 0)]);
}

#[test]
fn bad_new_games_are_refused() {
    let server = Server::start(&[]);
    let local = json!({"kind": "local"});
    for body in [
        json!({"rule": "gobang"}),
        json!({"size": 4}),
        json!({"size": 33}),
        json!({"size": "big"}),
        json!({"game": "chess"}),
        json!({"players": [local, {"kind": "alien"}]}),
        json!({"players": [local]}),
        json!({"players": [{"kind": "remote"}, {"kind": "remote"}]}),
        json!({"players": [local, {"kind": "engine", "engine": 0}]}),
        json!({"players": [local, {"kind": "wuzi", "level": 0}]}),
        json!({"players": [local, {"kind": "wuzi", "level": 6}]}),
        json!({"players": [local, {"kind": "wuzi", "time_ms": 1}]}),
        json!({"black": 2}),
        json!({"start": [[7, 7], [7, 7]]}),
        json!({"start": [[7, 7]], "opening_text": "7,7"}),
        json!({"opening": {"file": 0}}),
        json!({"record": "not a record"}),
        json!({"record": "Piskvorky 15x15, 1:1\n8,8,0\n8,8,0\n"}),
        json!({"clock": {"turn_ms": 1_000_000_000}}),
    ] {
        let (status, answer) = server.post("/api/games", &body);
        assert_eq!(status, 400, "{body}: {answer}");
    }
    let (status, _) = server.call(
        minreq::Method::Post,
        "/api/games",
        Some(b"{\"rule\": freestyle}".to_vec()),
    );
    assert_eq!(status, 400);
    // The server is fine and says what it offers.
    let (status, info) = server.get("/api/info");
    assert_eq!(status, 200);
    assert_eq!(
        info["rules"],
        json!(["freestyle", "standard", "renju", "caro8", "caro9"])
    );
    assert_eq!(info["engines"], json!([]));
    let (status, page) = server.raw(minreq::Method::Get, "/", None);
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&page)
        .to_ascii_lowercase()
        .contains("<html"));
    server.local("freestyle").play_local(&[(7, 7)]);
}

/// A network game: seat 0 (black) at this machine, seat 1 (white) on another.
fn network_game(server: &Server) -> Game<'_> {
    let game = server.create(json!({
        "rule": "freestyle",
        "players": [{"kind": "local"}, {"kind": "remote"}],
    }));
    assert_ne!(game.token(0), game.token(1));
    game
}

#[test]
fn network_game_shows_both_clients_and_a_spectator_the_same_moves() {
    let server = Server::start(&[]);
    let game = network_game(&server);
    let (black, white) = (game.token(0), game.token(1));
    let view = game.view(Some(black));
    assert_eq!(
        (view["you"].as_str(), &view["network"]),
        (Some("black"), &json!(true))
    );
    assert_eq!(view["white"]["kind"], "remote");
    assert_eq!(game.view(Some(white))["you"], "white");
    assert!(game.view(None)["you"].is_null());

    game.play(black, (7, 7));
    game.refused_act(409, black, "move", json!({"x": 1, "y": 1}));
    let seen = game.poll_across(0, 1, (8, 8));
    assert_eq!(board(&seen), vec![(7, 7), (8, 8)]);
    let seen = game.poll_across(1, 0, (9, 9));
    assert_eq!(seen["you"], "white");
    let moves = vec![(7, 7), (8, 8), (9, 9)];
    for token in [Some(black), Some(white), None] {
        let view = game.view(token);
        assert_eq!(board(&view), moves, "{token:?}");
        assert_eq!(view["to_move"], "white");
    }
    // A spectator watches but may not play, nor ask anything.
    let spectator = game.view(Some("not-a-seat"));
    assert!(spectator["you"].is_null(), "{spectator}");
    game.refused_act(403, "", "move", json!({"x": 1, "y": 1}));
    game.refused_act(403, "not-a-seat", "move", json!({"x": 1, "y": 1}));
    game.refused_act(403, "", "request", json!({"kind": "draw"}));
    game.refused_act(403, "", "resign", json!({}));
    // No hints for either side of a network game; chat reaches the other side only from them.
    game.refused_act(403, white, "hint", json!({"ms": 50}));
    game.refused_act(403, "", "chat", json!({"text": "hello"}));
    game.ok(white, "chat", json!({"text": "good luck"}));
    let chat = game.view(Some(black))["chat"].clone();
    assert_eq!(chat, json!([{"from": "white", "text": "good luck"}]));
}

#[test]
fn network_takeback_and_draw_need_the_other_players_consent() {
    let server = Server::start(&[]);
    let game = network_game(&server);
    let (black, white) = (game.token(0), game.token(1));
    game.play(black, (7, 7));
    game.play(white, (8, 8));
    game.play(black, (9, 9));
    let three = vec![(7, 7), (8, 8), (9, 9)];
    for token in [black, white] {
        game.refused_act(409, token, "undo", json!({}));
        game.refused_act(409, token, "goto", json!({"ply": 1}));
    }

    let takeback = json!({"kind": "takeback"});
    game.ok(black, "request", takeback.clone());
    let asked = game.view(Some(white));
    assert_eq!(
        asked["request"],
        json!({"kind": "takeback", "from": "black"})
    );
    game.refused_act(409, black, "respond", json!({"accept": true}));
    let view = game.ok(white, "respond", json!({"accept": false}));
    assert!(view["request"].is_null(), "{view}");
    assert_eq!(board(&view), three);
    assert_eq!(view["to_move"], "white");

    game.ok(black, "request", takeback);
    let view = game.ok(white, "respond", json!({"accept": true}));
    assert_eq!(board(&view), vec![(7, 7), (8, 8)]);
    assert_eq!(view["to_move"], "black");
    assert!(view["request"].is_null());
    assert_eq!(board(&game.view(Some(black))), vec![(7, 7), (8, 8)]);

    game.ok(white, "request", json!({"kind": "draw"}));
    assert_eq!(
        game.view(Some(black))["request"],
        json!({"kind": "draw", "from": "white"})
    );
    let view = game.ok(black, "respond", json!({"accept": true}));
    assert_result(&view, None, "agreement");
    assert_eq!(board(&view), vec![(7, 7), (8, 8)]);
    game.refused_act(409, black, "move", json!({"x": 1, "y": 1}));
}

/// Fetches the game's record as text.
fn record(game: &Game<'_>, format: &str) -> String {
    let (status, bytes) = game.server.raw(
        minreq::Method::Get,
        &game.path(&format!("/record.{format}")),
        None,
    );
    let text = String::from_utf8(bytes).expect("a record is text");
    assert_eq!(status, 200, "{text}");
    text
}

#[test]
fn records_save_and_reopen_as_psq_and_sgf() {
    let server = Server::start(&[]);
    // A finished freestyle game on 19×19.
    let column: Vec<Sq> = (3..8).map(|y| (2, y)).collect();
    let moves = alternate(&column, &[(10, 0), (12, 0), (18, 18), (12, 14)]);
    let game = server.create(json!({"size": 19}));
    let finished = game.play_local(&moves);
    assert_five(&finished, "black", &column);
    let psq = record(&game, "psq");
    assert!(psq.starts_with("Piskvorky 19x19"), "{psq}");
    let sgf = record(&game, "sgf");
    assert!(sgf.starts_with("(;") && sgf.contains("SZ[19]"), "{sgf}");
    for text in [&psq, &sgf] {
        let opened = server.create(json!({ "record": text }));
        let view = opened.view(None);
        assert_eq!(
            (view["width"].as_u64(), view["height"].as_u64()),
            (Some(19), Some(19))
        );
        assert_eq!(board(&view), moves, "{text}");
        assert_five(&view, "black", &column);

        // For replay: the cursor at the start, every move there to redo.
        let replay = server.create(json!({ "record": text, "replay": true }));
        let token = replay.token(0);
        let view = replay.view(None);
        assert_eq!(cursor(&view), 0);
        assert_eq!(squares(&view["moves"]), moves);
        assert!(view["result"].is_null());
        let view = replay.ok(token, "redo", json!({}));
        assert_eq!(board(&view), moves[..1]);
        let view = replay.ok(token, "goto", json!({"ply": moves.len()}));
        assert_eq!(board(&view), moves);
        assert_five(&view, "black", &column);
        let view = replay.ok(token, "goto", json!({"ply": 4}));
        assert_eq!(board(&view), moves[..4]);
        assert!(view["result"].is_null(), "{view}");
        // A different move there drops the rest of the record.
        let view = replay.play_local(&[(0, 0)]);
        assert_eq!(squares(&view["moves"]), [&moves[..4], &[(0, 0)]].concat());
        replay.refused_act(409, token, "redo", json!({}));
    }

    // An unfinished renju game: SGF names the rule; PSQ does not, so it is given again.
    let game = server.local("renju");
    let moves = [(7, 7), (8, 7), (8, 8), (6, 6)];
    game.play_local(&moves);
    let opened = server.create(json!({ "record": record(&game, "sgf") }));
    let view = opened.view(None);
    assert_eq!(view["rule"], "renju");
    assert_eq!(board(&view), moves);
    assert_eq!(view["to_move"], "black");
    let psq = record(&game, "psq");
    let view = server
        .create(json!({ "record": psq, "rule": "renju" }))
        .view(None);
    assert_eq!(
        (view["rule"].as_str(), board(&view)),
        (Some("renju"), moves.to_vec())
    );
    assert_eq!(
        server.create(json!({ "record": psq })).view(None)["rule"],
        "freestyle"
    );
}

#[test]
fn a_brains_renju_foul_loses_and_its_record_reopens() {
    // The brain (black) builds (6,7) (7,7) and (8,6) (8,5), then plays the double three (8,7).
    let fouls = ["6,7", "7,7", "8,6", "8,5", "8,7"];
    let server = Server::start(&brain(LIST_BRAIN, &fouls, "list"));
    let game = server.create(json!({
        "rule": "renju",
        "players": [{"kind": "engine", "engine": 0, "time_ms": 1000}, {"kind": "local"}],
    }));
    let me = game.token(1);
    for (n, at) in [(0, 0), (0, 14), (14, 0), (14, 14)].into_iter().enumerate() {
        game.wait_for(Some(me), "brain's move", |v| cursor(v) == 2 * n + 1);
        game.play(me, at);
    }
    let view = game.wait_result();
    assert_result(&view, Some("white"), "renju foul");
    let moves = board(&view);
    assert_eq!((moves.len(), moves.last()), (9, Some(&(8, 7))), "{view}");

    for format in ["psq", "sgf"] {
        let text = record(&game, format);
        let opened = server.create(json!({ "record": text, "rule": "renju" }));
        let view = opened.view(None);
        assert_eq!(board(&view), moves, "{format}");
        assert_result(&view, Some("white"), "renju foul");
        let replay = server.create(json!({ "record": text, "rule": "renju", "replay": true }));
        let token = replay.token(0);
        let view = replay.ok(token, "goto", json!({ "ply": 9 }));
        assert_eq!(board(&view), moves, "{format}");
        assert_result(&view, Some("white"), "renju foul");
        let view = replay.ok(token, "goto", json!({ "ply": 8 }));
        assert_eq!(board(&view), moves[..8], "{format}");
        assert!(squares(&view["forbidden"]).contains(&(8, 7)), "{view}");
        replay.refused_act(422, token, "move", json!({"x": 8, "y": 7}));
        let view = replay.ok(token, "redo", json!({}));
        assert_result(&view, Some("white"), "renju foul");
    }
}

#[test]
fn crashing_and_babbling_brains_lose_and_the_server_goes_on() {
    let babble = PidBrain::new("garbage");
    let mut args = brain(FAKE, &["crash"], "crash");
    args.extend(babble.engine("garbage"));
    let server = Server::start(&args);
    let (_, info) = server.get("/api/info");
    let names: Vec<&str> = info["engines"]
        .as_array()
        .expect("engines")
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(names, ["crash", "garbage"]);

    let engine = |index: usize| json!({"kind": "engine", "engine": index, "time_ms": 500});
    let local = json!({"kind": "local"});
    // The brain plays black and fails on its first move.
    for (index, reason) in [(0, "crash"), (1, "unparsable answer")] {
        let game = server.create(json!({"players": [engine(index), local]}));
        assert!(
            game.tokens[0].is_none(),
            "a computer's secret is never handed out"
        );
        let view = game.wait_result();
        assert_result(&view, Some("white"), reason);
        assert_eq!(view["black"]["kind"], "engine");
        assert!(board(&view).is_empty(), "{view}");
    }
    babble.assert_gone();
    // Against a person who moves first; for the next round the crashed brain is started again.
    let game = server.create(json!({"players": [local, engine(0)]}));
    let me = game.token(0);
    for round in [0, 1] {
        game.play(me, (7, 7));
        let view = game.wait_result();
        assert_result(&view, Some("black"), "crash");
        assert_eq!(view["round"], round);
        let view = game.ok(me, "request", json!({"kind": "new_game"}));
        assert!(
            view["result"].is_null() && board(&view).is_empty(),
            "{view}"
        );
    }
    // People still play.
    let view = server.local("freestyle").play_local(&[(7, 7), (7, 8)]);
    assert_eq!(board(&view), vec![(7, 7), (7, 8)]);
}

#[test]
fn hanging_brain_loses_on_time_and_is_killed() {
    let brain = PidBrain::new("hang");
    let server = Server::start(&brain.engine("hang"));
    let game = server.create(json!({
        "players": [{"kind": "engine", "engine": 0, "time_ms": 100}, {"kind": "local"}],
    }));
    let view = game.wait_result();
    assert_result(&view, Some("white"), "time forfeit");
    brain.assert_gone();
}

#[test]
fn wuzi_replies_through_the_long_poll() {
    let server = Server::start(&[]);
    let game = server.create(json!({
        "players": [{"kind": "local"}, {"kind": "wuzi", "level": 1, "time_ms": 100}],
    }));
    let me = game.token(0);
    assert!(game.tokens[1].is_none());
    let mut mine = vec![(7, 7), (3, 11), (11, 3), (3, 3), (11, 11)].into_iter();
    let reply = |n: usize| {
        let view = game.wait_for(Some(me), "reply", |v| {
            cursor(v) == n && v["to_move"] == "black"
        });
        let stones = board(&view);
        let last = stones[n - 1];
        assert!(
            (0..15).contains(&last.0) && (0..15).contains(&last.1),
            "{view}"
        );
        assert!(!stones[..n - 1].contains(&last), "{view}");
        view
    };
    for n in [2, 4] {
        let view = game.view(Some(me));
        let stones = board(&view);
        let next = mine.find(|m| !stones.contains(m)).expect("a free square");
        game.play(me, next);
        reply(n);
    }
    // Undo takes back the reply and my move; redo brings both back.
    let view = game.ok(me, "undo", json!({}));
    assert_eq!((cursor(&view), &view["paused"]), (2, &json!(false)));
    let view = game.ok(me, "redo", json!({}));
    assert_eq!(cursor(&view), 4);
    // Gone back to where wuzi is to move, the game waits to be resumed.
    let view = game.ok(me, "goto", json!({"ply": 1}));
    assert_eq!((cursor(&view), &view["paused"]), (1, &json!(true)));
    game.ok(me, "resume", json!({}));
    reply(2);
    // A hint for my move.
    game.ok(me, "hint", json!({"ms": 50}));
    let view = game.wait_for(Some(me), "hint", |v| v["hint"]["done"] == true);
    assert!(!squares(&view["hint"]["pv"]).is_empty(), "{view}");
}

#[test]
fn a_game_between_two_computers_is_hosted_by_its_creator() {
    let server = Server::start(&[]);
    let wuzi = json!({"kind": "wuzi", "level": 1, "time_ms": 50});
    let game = server.create(json!({ "players": [wuzi, wuzi] }));
    // Both secrets go to the creator, as the host's.
    let host = game.token(0).to_string();
    assert!(game.tokens[1].is_some());
    let view = game.wait_for(Some(&host), "three moves", |v| cursor(v) >= 3);
    assert_eq!(
        (&view["host"], &view["you"]),
        (&json!(true), &Value::Null),
        "{view}"
    );
    assert_eq!(game.view(None)["host"], json!(false));
    // The host moves for neither computer, resigns for neither and offers no draw.
    let free = (0..15)
        .flat_map(|x| (0..15).map(move |y| (x, y)))
        .find(|s| !board(&view).contains(s))
        .expect("a free square");
    assert_eq!(
        game.act(&host, "move", json!({"x": free.0, "y": free.1})).0,
        403
    );
    assert_eq!(game.act(&host, "resign", json!({})).0, 403);
    assert_eq!(game.act(&host, "request", json!({"kind": "draw"})).0, 403);
    // Undo goes back one move and waits for the host to let the computer play.
    let view = game.ok(&host, "undo", json!({}));
    let history = view["moves"].as_array().map_or(0, Vec::len);
    assert_eq!(cursor(&view) + 1, history, "{view}");
    assert_eq!(view["paused"], json!(true), "{view}");
    let paused_at = cursor(&view);
    assert_eq!(cursor(&game.view(None)), paused_at);
    game.ok(&host, "resume", json!({}));
    game.wait_for(Some(&host), "the game to go on", |v| cursor(v) > paused_at);
    // A new round starts from the empty board at once.
    let view = game.ok(&host, "request", json!({"kind": "new_game_swapped"}));
    assert_eq!(view["round"], json!(1), "{view}");
}

/// A Connect Four game at one screen: `(column, 0)` moves, the disc's square in the view.
fn connect4_local(server: &Server, width: usize, height: usize) -> Game<'_> {
    let game = server.create(json!({ "game": "connect4", "width": width, "height": height }));
    assert!(game.tokens.iter().all(Option::is_some), "{:?}", game.tokens);
    game
}

/// Where a disc dropped into `column` lands on the board of `view` (`y = 0` at the top).
fn landing(view: &Value, column: i64) -> Sq {
    let height = view["height"].as_i64().expect("a height");
    let taken = board(view).iter().filter(|&&(x, _)| x == column).count() as i64;
    (column, height - 1 - taken)
}

#[test]
fn connect4_drops_discs_wins_by_four_and_refuses_full_columns() {
    let server = Server::start(&[]);
    let game = connect4_local(&server, 7, 6);
    let view = game.view(None);
    assert_eq!(
        (&view["game"], &view["width"], &view["height"]),
        (&json!("connect4"), &json!(7), &json!(6))
    );
    // The row a person clicks does not matter: the disc falls.
    let view = game.play_local(&[(0, 0), (1, 3)]);
    assert_eq!(board(&view), vec![(0, 5), (1, 5)]);
    let view = game.play_local(&[(0, 5), (1, 0), (0, 0), (1, 0)]);
    assert!(view["result"].is_null(), "{view}");
    let view = game.play_local(&[(0, 0)]);
    assert_result(&view, Some("black"), "four");
    let mut line = squares(&view["result"]["line"]);
    line.sort_unstable();
    assert_eq!(line, vec![(0, 2), (0, 3), (0, 4), (0, 5)]);
    let text = view["result"]["text"].as_str().expect("a text");
    assert!(
        text.starts_with("red") && text.contains("four in a row"),
        "{text}"
    );
    // No Gomoku records of a Connect Four game.
    game.refused(409, || server.get(&game.path("/record.psq")));

    // A full column is refused; moves off the board too.
    let game = connect4_local(&server, 7, 7);
    game.play_local(&[(3, 0); 7]);
    let (status, answer) = game.act(game.token(1), "move", json!({ "x": 3, "y": 0 }));
    assert_eq!(status, 422, "{answer}");
    assert!(
        answer["error"].as_str().unwrap_or("").contains("full"),
        "{answer}"
    );
    game.refused_act(422, game.token(1), "move", json!({ "x": 3, "y": 0 }));
    game.refused_act(422, game.token(1), "move", json!({ "x": 7, "y": 0 }));
    game.refused_act(422, game.token(1), "move", json!({ "x": -1, "y": 0 }));
    let view = game.play_local(&[(2, 0)]);
    assert_eq!(board(&view).last(), Some(&(2, 6)), "{view}");

    // A diagonal four: red's discs at rows 0, 1, 2, 3 of columns 1..4; undo takes it back.
    let game = connect4_local(&server, 7, 6);
    let columns = [0, 1, 1, 2, 2, 3, 2, 3, 3, 6];
    let moves: Vec<Sq> = columns.iter().map(|&c| (c, 0)).collect();
    let view = game.play_local(&moves);
    assert!(view["result"].is_null(), "{view}");
    let view = game.play_local(&[(3, 0)]);
    assert_result(&view, Some("black"), "four");
    let mut line = squares(&view["result"]["line"]);
    line.sort_unstable();
    assert_eq!(line, vec![(0, 5), (1, 4), (2, 3), (3, 2)]);
    let view = game.ok(game.token(0), "undo", json!({}));
    assert!(view["result"].is_null(), "{view}");
    assert_eq!(cursor(&view), 10, "{view}");
}

#[test]
fn bad_connect4_games_are_refused() {
    let server = Server::start(&[]);
    let local = json!({"kind": "local"});
    for body in [
        json!({"game": "connect4", "width": 3}),
        json!({"game": "connect4", "height": 3}),
        json!({"game": "connect4", "width": 7, "height": 9}),
        json!({"game": "connect4", "width": 10, "height": 4}),
        json!({"game": "connect4", "width": "seven"}),
        json!({"game": "connect4", "rule": "renju"}),
        json!({"game": "connect4", "size": 15}),
        json!({"game": "connect4", "start": [[3, 5]]}),
        json!({"game": "connect4", "opening_text": "3,5"}),
        json!({"game": "connect4", "players": [local, {"kind": "engine", "engine": 0}]}),
        json!({"game": "connect4", "players": [local, {"kind": "wuzi", "level": 9}]}),
    ] {
        let (status, answer) = server.post("/api/games", &body);
        assert_eq!(status, 400, "{body}: {answer}");
    }
    let (_, info) = server.get("/api/info");
    assert_eq!(info["games"], json!(["gomoku", "connect4"]));
}

#[test]
fn wuzi_plays_connect4_from_its_book_and_hints_every_column() {
    let server = Server::start(&[]);
    let game = server.create(json!({
        "game": "connect4",
        "players": [{"kind": "wuzi", "level": 5, "time_ms": 2000}, {"kind": "local"}],
    }));
    let me = game.token(1);
    let view = game.wait_for(Some(me), "wuzi's first disc", |v| cursor(v) == 1);
    // The perfect first move, from the book: the centre column.
    assert_eq!(board(&view), vec![(3, 5)]);
    let thought = view["last_thinking"]["score_text"].as_str().unwrap_or("");
    assert!(thought.contains("book"), "{view}");
    game.ok(me, "hint", json!({"ms": 2000}));
    let view = game.wait_for(Some(me), "hint", |v| v["hint"]["done"] == true);
    let columns: Vec<&str> = view["hint"]["columns"]
        .as_array()
        .expect("the hint's columns")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    // Red's centre opening wins: every answer loses, the centre the latest.
    assert_eq!(columns.len(), 7, "{view}");
    assert!(
        columns.iter().all(|c| c.starts_with("loses")),
        "{columns:?}"
    );
    assert_eq!(squares(&view["hint"]["pv"]), vec![(3, 4)], "{view}");

    // A 7×7 game: every reply of wuzi's is a legal drop.
    let game = server.create(json!({
        "game": "connect4", "width": 7, "height": 7,
        "players": [{"kind": "local"}, {"kind": "wuzi", "level": 5, "time_ms": 200}],
    }));
    let me = game.token(0);
    let mut view = game.view(Some(me));
    for column in [3, 3, 2, 4] {
        if view["result"].is_object() {
            break;
        }
        let at = landing(&view, column);
        let n = cursor(&view);
        game.play(me, at);
        view = game.wait_for(Some(me), "wuzi's reply", |v| {
            cursor(v) == n + 2 || v["result"].is_object()
        });
        let moves = board(&view);
        if let Some(&(x, y)) = moves.get(n + 1) {
            let below = moves[..n + 1].iter().filter(|m| m.0 == x).count() as i64;
            assert_eq!(y, 6 - below, "wuzi's disc floats: {view}");
        }
    }
    assert!(cursor(&view) >= 8 || view["result"].is_object(), "{view}");
}
