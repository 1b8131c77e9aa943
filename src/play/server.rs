//! The HTTP side of the play page, on `tiny_http`: one thread accepts requests and hands each
//! to a short-lived handler thread (a long poll holds its thread while it waits). Limits: the
//! number of requests in flight (over it: 503), and the body size (over it: 413, the rest is
//! not read). `tiny_http` keeps idle keep-alive connections on threads of its own and gives no
//! count of them, so open connections are bounded only through the requests they carry. A
//! clock thread flags fallen flags and drops idle games.

use std::{
    io::Read,
    net::SocketAddr,
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        Arc,
    },
    thread,
    time::{Duration, Instant},
};

use anyhow::anyhow;

use super::{
    api::{Response, Server, MAX_BODY_BYTES},
    ApiError,
};

/// Requests handled at the same time (long polls included).
pub const MAX_IN_FLIGHT: usize = 192;
/// How often the clocks are checked.
pub const TICK: Duration = Duration::from_millis(100);
/// How often idle games are dropped.
pub const EXPIRY_EVERY: Duration = Duration::from_secs(10);

/// A running server.
pub struct Running {
    server: Arc<tiny_http::Server>,
    /// The address it listens on.
    pub addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl Running {
    /// Stops accepting requests (the threads end soon after).
    pub fn shutdown(&self) {
        self.stop.store(true, Ordering::SeqCst);
        self.server.unblock();
    }
}

fn to_tiny(r: Response) -> tiny_http::Response<std::io::Cursor<Vec<u8>>> {
    let mut out = tiny_http::Response::from_data(r.body).with_status_code(r.status);
    let mut headers = vec![
        ("Content-Type", r.content_type.to_string()),
        ("X-Content-Type-Options", "nosniff".to_string()),
        ("Referrer-Policy", "no-referrer".to_string()),
    ];
    headers.extend(r.headers);
    for (name, value) in headers {
        if let Ok(h) = tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            out.add_header(h);
        }
    }
    out
}

fn handle(app: &Server, mut request: tiny_http::Request) {
    let method = request.method().as_str().to_ascii_uppercase();
    let url = request.url().to_string();
    let declared = request.body_length().unwrap_or(0);
    let response = if declared > MAX_BODY_BYTES {
        Response::error(&ApiError::too_large("the request body is too large"))
    } else {
        let mut body = Vec::new();
        let limit = (MAX_BODY_BYTES + 1) as u64;
        match request.as_reader().take(limit).read_to_end(&mut body) {
            Ok(_) => app.handle(&method, &url, &body),
            Err(e) => Response::error(&ApiError::bad(format!("cannot read the body: {e}"))),
        }
    };
    if response.status >= 500 || (response.status >= 400 && log::log_enabled!(log::Level::Debug)) {
        log::debug!("{method} {url}: {}", response.status);
    }
    let _ = request.respond(to_tiny(response));
}

/// Starts serving `app` on `addr` (port 0: any free port).
pub fn start(app: Arc<Server>, addr: &str) -> anyhow::Result<Running> {
    let server =
        tiny_http::Server::http(addr).map_err(|e| anyhow!("cannot listen on {addr}: {e}"))?;
    let server = Arc::new(server);
    let bound = server
        .server_addr()
        .to_ip()
        .ok_or_else(|| anyhow!("{addr} is not an IP address"))?;
    let stop = Arc::new(AtomicBool::new(false));

    // The clock: fallen flags every TICK, idle games every EXPIRY_EVERY.
    {
        let app = Arc::clone(&app);
        let stop = Arc::clone(&stop);
        thread::Builder::new()
            .name("play-clock".into())
            .spawn(move || {
                let mut last_expiry = Instant::now();
                while !stop.load(Ordering::SeqCst) {
                    thread::sleep(TICK);
                    app.lobby.tick();
                    if last_expiry.elapsed() >= EXPIRY_EVERY {
                        app.lobby.expire(Instant::now());
                        last_expiry = Instant::now();
                    }
                }
            })?;
    }

    {
        let server = Arc::clone(&server);
        let stop = Arc::clone(&stop);
        thread::Builder::new()
            .name("play-accept".into())
            .spawn(move || {
                let in_flight = Arc::new(AtomicUsize::new(0));
                while !stop.load(Ordering::SeqCst) {
                    let request = match server.recv() {
                        Ok(r) => r,
                        Err(e) => {
                            log::warn!("play server: {e}");
                            continue;
                        }
                    };
                    if stop.load(Ordering::SeqCst) {
                        break;
                    }
                    if in_flight.load(Ordering::SeqCst) >= MAX_IN_FLIGHT {
                        let e = ApiError::unavailable("the server is busy; try again");
                        let _ = request.respond(to_tiny(Response::error(&e)));
                        continue;
                    }
                    in_flight.fetch_add(1, Ordering::SeqCst);
                    let app = Arc::clone(&app);
                    let counter = Arc::clone(&in_flight);
                    let spawned =
                        thread::Builder::new()
                            .name("play-request".into())
                            .spawn(move || {
                                handle(&app, request);
                                counter.fetch_sub(1, Ordering::SeqCst);
                            });
                    if spawned.is_err() {
                        in_flight.fetch_sub(1, Ordering::SeqCst);
                    }
                }
            })?;
    }
    Ok(Running {
        server,
        addr: bound,
        stop,
    })
}
