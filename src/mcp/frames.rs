//! Owns the MCP server's stdio framing: one JSON-RPC 2.0 message per line
//! in, one per line out. rmcp's own stdio transport drops what it cannot
//! parse without an answer and answers a message of the wrong shape without
//! its id, so this transport reads and checks every line itself, answers the
//! faulty ones itself, and hands rmcp only messages it can take.
//!
//! What a line gets (JSON-RPC 2.0, section 5):
//! - not JSON (syntax, trailing data, two values on a line, invalid UTF-8),
//!   or nested deeper than [`MAX_DEPTH`]: `-32700` with `id: null`;
//! - longer than [`MAX_FRAME_BYTES`]: `-32600` with `id: null` (the line is
//!   not read, so its id is unknown), sent as soon as the limit is crossed;
//!   the rest of the line is skipped and the next line read as usual;
//! - JSON but not a request (`jsonrpc` not `"2.0"`, `method` not a string,
//!   an id that is not a string or a number, neither `method` nor
//!   `result`/`error`): `-32600` with the id when it has a usable one, else
//!   `null`;
//! - a request whose params are not an object or do not fit its method:
//!   `-32602` with its id;
//! - a batch (a JSON array; MCP has no batches since 2025-06-18): an array
//!   with a `-32600` answer per element that has an id, `null` ones for
//!   elements that are not requests, one `-32600` for an empty batch or one
//!   of notifications only;
//! - a notification (no id) whose params are wrong, or any notification or
//!   client response before the session started: nothing (logged).
//!
//! Unknown methods reach rmcp, which answers `-32601` with the id.
//!
//! **Invariant:** every line with an id gets exactly one answer and the
//! transport keeps reading after any line; only the end of stdin (or a read
//! error) ends it. Answers written here and rmcp's replies go through one
//! writer task, in order, one whole line each.

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::RoleServer;
use rmcp::model::{
    CallToolRequestMethod, CancelTaskMethod, ClientJsonRpcMessage, ClientNotification,
    ClientRequest, CompleteRequestMethod, ConstString, DiscoverRequestMethod,
    GetPromptRequestMethod, GetSkillRequestMethod, GetTaskMethod, InitializeResultMethod,
    JsonRpcMessage, ListPromptsRequestMethod, ListResourceTemplatesRequestMethod,
    ListResourcesRequestMethod, ListSkillsRequestMethod, ListToolsRequestMethod, PingRequestMethod,
    ReadResourceDirectoryRequestMethod, ReadResourceRequestMethod, RequestId, ServerJsonRpcMessage,
    ServerResult, SetLevelRequestMethod, SubscribeRequestMethod, SubscriptionsListenRequestMethod,
    UnsubscribeRequestMethod, UpdateTaskMethod,
};
use rmcp::service::{RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

/// Longest line read, in bytes (4 MiB); a longer one is answered with
/// `-32600` and skipped. The largest tool arguments are a few kB.
pub const MAX_FRAME_BYTES: usize = 4 << 20;
/// Deepest nesting of arrays and objects accepted in a line; deeper ones are
/// answered with `-32700` before they are parsed. No tool argument comes
/// near it, and it stays well below `serde_json`'s recursion limit of 128.
pub const MAX_DEPTH: usize = 64;

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const INVALID_PARAMS: i64 = -32602;

/// The requests rmcp knows: when one of these arrives as a `CustomRequest`,
/// its params did not fit (rmcp falls back to the custom variant then, and
/// would answer "method not found").
const KNOWN_REQUESTS: &[&str] = &[
    InitializeResultMethod::VALUE,
    PingRequestMethod::VALUE,
    DiscoverRequestMethod::VALUE,
    CompleteRequestMethod::VALUE,
    SetLevelRequestMethod::VALUE,
    GetPromptRequestMethod::VALUE,
    ListPromptsRequestMethod::VALUE,
    ListResourcesRequestMethod::VALUE,
    ListResourceTemplatesRequestMethod::VALUE,
    ReadResourceRequestMethod::VALUE,
    SubscriptionsListenRequestMethod::VALUE,
    SubscribeRequestMethod::VALUE,
    UnsubscribeRequestMethod::VALUE,
    CallToolRequestMethod::VALUE,
    ListToolsRequestMethod::VALUE,
    GetTaskMethod::VALUE,
    UpdateTaskMethod::VALUE,
    CancelTaskMethod::VALUE,
    ListSkillsRequestMethod::VALUE,
    GetSkillRequestMethod::VALUE,
    ReadResourceDirectoryRequestMethod::VALUE,
];

/// One line out, and whoever waits for it to be written.
type Outgoing = (Vec<u8>, Option<oneshot::Sender<std::io::Result<()>>>);

/// The server's stdio transport (see the module docs).
pub struct LineTransport<R> {
    read: BufReader<R>,
    /// The line read so far (kept across cancelled reads).
    line: Vec<u8>,
    /// Bytes of an over-long line skipped so far; `Some` until its newline.
    skipping: Option<usize>,
    out: Option<mpsc::UnboundedSender<Outgoing>>,
    /// The session started (rmcp answered a request other than `ping` or
    /// `server/discover` with a result): before that, rmcp ends the session
    /// on a notification or a response, so those are dropped here.
    started: Arc<AtomicBool>,
    /// Ids of requests passed on and not answered yet: rmcp keeps one
    /// answer per id, so a second request with a running one's id would
    /// silence one of them; it is refused here instead.
    in_flight: Arc<Mutex<HashSet<String>>>,
}

impl<R: AsyncRead + Unpin + Send> LineTransport<R> {
    /// Reads from `read` and writes through a task spawned on the current
    /// runtime, which owns `write`.
    pub fn new<W: AsyncWrite + Unpin + Send + 'static>(read: R, write: W) -> Self {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(write_lines(write, rx));
        LineTransport {
            read: BufReader::new(read),
            line: Vec::new(),
            skipping: None,
            out: Some(tx),
            started: Arc::new(AtomicBool::new(false)),
            in_flight: Arc::default(),
        }
    }

    /// Passes a message on unless it is a request whose id is in use.
    fn pass(&self, msg: ClientJsonRpcMessage) -> Option<ClientJsonRpcMessage> {
        let mut in_flight = self.in_flight.lock().unwrap_or_else(|e| e.into_inner());
        match &msg {
            JsonRpcMessage::Request(req) if !in_flight.insert(id_key(&req.id)) => {
                let id = req.id.clone().into_json_value();
                self.answer(&error_answer(
                    id.clone(),
                    INVALID_REQUEST,
                    format!("Invalid Request: id {id} is in use by a request still running"),
                ));
                return None;
            }
            JsonRpcMessage::Notification(n) => {
                // A cancelled request gets no answer: its id is free again.
                if let ClientNotification::CancelledNotification(c) = &n.notification
                    && let Some(id) = &c.params.request_id
                {
                    in_flight.remove(&id_key(id));
                }
            }
            _ => {}
        }
        Some(msg)
    }

    /// Queues an answer of our own; it goes out in order with rmcp's.
    fn answer(&self, answer: &Value) {
        let Some(out) = &self.out else { return };
        let mut bytes = answer.to_string().into_bytes();
        bytes.push(b'\n');
        let _ = out.send((bytes, None));
    }

    /// Reads up to the next newline without holding more than
    /// [`MAX_FRAME_BYTES`]; `None` at the end of input. Cancel-safe: a read
    /// dropped half-way leaves its bytes in `self.line` for the next call.
    async fn next_line(&mut self) -> Option<Line> {
        loop {
            let available = match self.read.fill_buf().await {
                Ok(bytes) => bytes,
                Err(e) => {
                    tracing::warn!("cannot read stdin: {e}");
                    return None;
                }
            };
            if available.is_empty() {
                if self.line.is_empty() {
                    return None;
                }
                // A last line without its newline is still a line.
                return Some(Line::Whole);
            }
            let newline = available.iter().position(|&b| b == b'\n');
            let take = newline.map_or(available.len(), |i| i + 1);
            if let Some(skipped) = &mut self.skipping {
                *skipped += take;
                self.read.consume(take);
                if newline.is_some() {
                    let skipped = self.skipping.take().unwrap_or_default();
                    tracing::debug!(bytes = skipped, "skipped an over-long line");
                }
                continue;
            }
            if self.line.len() + take > MAX_FRAME_BYTES {
                let seen = self.line.len() + take;
                self.line.clear();
                self.read.consume(take);
                if newline.is_none() {
                    self.skipping = Some(seen);
                }
                return Some(Line::TooLong);
            }
            self.line.extend_from_slice(&available[..take]);
            self.read.consume(take);
            if newline.is_some() {
                return Some(Line::Whole);
            }
        }
    }
}

enum Line {
    /// `self.line` holds a whole line.
    Whole,
    /// A line crossed [`MAX_FRAME_BYTES`]; the rest of it is being skipped.
    TooLong,
}

/// What one line comes to.
#[derive(Debug)]
pub enum Verdict {
    /// A message for rmcp.
    Pass(Box<ClientJsonRpcMessage>),
    /// Answered here: this is the answer.
    Answer(Value),
    /// Nothing to answer (an empty line, a notification that does not fit).
    Ignore,
}

/// A JSON-RPC error answer.
pub fn error_answer(id: Value, code: i64, message: impl Into<String>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message.into()}})
}

/// Judges one line (without its newline). `started`: whether the session
/// began, before which notifications and responses are dropped.
pub fn judge(line: &[u8], started: bool) -> Verdict {
    let line = line.strip_suffix(b"\r").unwrap_or(line);
    let line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
    if line.iter().all(u8::is_ascii_whitespace) {
        return Verdict::Ignore;
    }
    if deeper_than(line, MAX_DEPTH) {
        return Verdict::Answer(error_answer(
            Value::Null,
            PARSE_ERROR,
            format!("Parse error: JSON nested deeper than {MAX_DEPTH} levels"),
        ));
    }
    let value: Value = match serde_json::from_slice(line) {
        Ok(v) => v,
        Err(e) => {
            return Verdict::Answer(error_answer(
                Value::Null,
                PARSE_ERROR,
                format!("Parse error: {e}"),
            ));
        }
    };
    match value {
        Value::Array(items) => Verdict::Answer(batch_answer(&items)),
        Value::Object(_) => judge_message(value, started),
        _ => Verdict::Answer(error_answer(
            Value::Null,
            INVALID_REQUEST,
            "Invalid Request: a message is a JSON object",
        )),
    }
}

/// The id to answer a message with, if it has one: `Err` holds the error
/// for an id of the wrong type (answered with `id: null`).
fn message_id(obj: &serde_json::Map<String, Value>) -> Result<Option<Value>, &'static str> {
    match obj.get("id") {
        None => Ok(None),
        Some(id @ (Value::String(_) | Value::Number(_))) => Ok(Some(id.clone())),
        Some(_) => Err("Invalid Request: `id` must be a string or an integer"),
    }
}

/// Checks a message's envelope; `Err` is the message of a `-32600`.
fn check_envelope(obj: &serde_json::Map<String, Value>) -> Result<(), String> {
    match obj.get("jsonrpc") {
        Some(Value::String(v)) if v == "2.0" => {}
        Some(other) => {
            return Err(format!(
                "Invalid Request: `jsonrpc` must be \"2.0\", not {other}"
            ));
        }
        None => return Err("Invalid Request: `jsonrpc` (\"2.0\") is missing".into()),
    }
    let has_reply = obj.contains_key("result") || obj.contains_key("error");
    match obj.get("method") {
        Some(Value::String(_)) if has_reply => Err(
            "Invalid Request: a message has either `method` or `result`/`error`, not both".into(),
        ),
        Some(Value::String(_)) => Ok(()),
        Some(_) => Err("Invalid Request: `method` must be a string".into()),
        None if has_reply => Ok(()),
        None => Err("Invalid Request: `method` is missing".into()),
    }
}

fn judge_message(value: Value, started: bool) -> Verdict {
    let Value::Object(obj) = &value else {
        return Verdict::Ignore;
    };
    let id = match message_id(obj) {
        Ok(id) => id,
        Err(msg) => return Verdict::Answer(error_answer(Value::Null, INVALID_REQUEST, msg)),
    };
    if let Some(Value::Number(n)) = &id
        && !n.is_i64()
    {
        let msg = "Invalid Request: `id` must be a string or an integer";
        return Verdict::Answer(error_answer(Value::Number(n.clone()), INVALID_REQUEST, msg));
    }
    if let Err(msg) = check_envelope(obj) {
        return Verdict::Answer(error_answer(
            id.unwrap_or(Value::Null),
            INVALID_REQUEST,
            msg,
        ));
    }
    let method = obj.get("method").and_then(Value::as_str).map(str::to_owned);
    let is_request = method.is_some() && id.is_some();
    if let (Some(method), Some(id)) = (&method, &id)
        && obj
            .get("params")
            .is_some_and(|p| !p.is_object() && !p.is_null())
    {
        return Verdict::Answer(error_answer(
            id.clone(),
            INVALID_PARAMS,
            format!("Invalid params for `{method}`: `params` must be an object"),
        ));
    }
    if !is_request && !started {
        tracing::debug!("dropped a notification or response before the session started");
        return Verdict::Ignore;
    }
    // Kept for the error message: the typed parse says what does not fit.
    let params = obj.get("params").cloned();
    match serde_json::from_value::<ClientJsonRpcMessage>(value) {
        Ok(JsonRpcMessage::Request(req))
            if matches!(&req.request, ClientRequest::CustomRequest(c)
                if KNOWN_REQUESTS.contains(&c.method.as_str())) =>
        {
            let method = req.request.method().to_string();
            Verdict::Answer(error_answer(
                req.id.into_json_value(),
                INVALID_PARAMS,
                format!(
                    "Invalid params for `{method}`{}",
                    params_problem(&method, params)
                ),
            ))
        }
        Ok(msg) => Verdict::Pass(Box::new(msg)),
        Err(e) => match (method, id) {
            (Some(method), Some(id)) => Verdict::Answer(error_answer(
                id,
                INVALID_PARAMS,
                format!("Invalid params for `{method}`: {e}"),
            )),
            _ => {
                tracing::debug!("dropped a notification or response that does not fit: {e}");
                Verdict::Ignore
            }
        },
    }
}

/// What is wrong with a known request's params, as `: <why>`, for the
/// requests whose params an agent writes by hand.
fn params_problem(method: &str, params: Option<Value>) -> String {
    use rmcp::model::{CallToolRequestParams, InitializeRequestParams};
    let params = params.unwrap_or(Value::Null);
    let problem = if method == CallToolRequestMethod::VALUE {
        serde_json::from_value::<CallToolRequestParams>(params).err()
    } else if method == InitializeResultMethod::VALUE {
        serde_json::from_value::<InitializeRequestParams>(params).err()
    } else {
        None
    };
    problem.map(|e| format!(": {e}")).unwrap_or_default()
}

/// The answer to a batch: MCP has none, so every request in it is refused.
fn batch_answer(items: &[Value]) -> Value {
    const MSG: &str = "Invalid Request: batches are not supported (MCP removed them); \
                       send each request on its own line";
    let answers: Vec<Value> = items
        .iter()
        .filter_map(|item| match item {
            Value::Object(obj) => match message_id(obj) {
                Ok(Some(id)) => Some(error_answer(id, INVALID_REQUEST, MSG)),
                // A notification gets no answer of its own.
                Ok(None) if obj.get("method").is_some_and(Value::is_string) => None,
                _ => Some(error_answer(Value::Null, INVALID_REQUEST, MSG)),
            },
            _ => Some(error_answer(Value::Null, INVALID_REQUEST, MSG)),
        })
        .collect();
    if answers.is_empty() {
        error_answer(Value::Null, INVALID_REQUEST, MSG)
    } else {
        Value::Array(answers)
    }
}

/// Whether arrays and objects nest deeper than `max` (strings skipped).
fn deeper_than(bytes: &[u8], max: usize) -> bool {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for &b in bytes {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > max {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    false
}

fn id_key(id: &RequestId) -> String {
    id.clone().into_json_value().to_string()
}

/// Whether an answer of rmcp's shows the session has started.
fn starts_session(msg: &ServerJsonRpcMessage) -> bool {
    match msg {
        ServerJsonRpcMessage::Response(r) => !matches!(
            r.result,
            ServerResult::EmptyResult(_) | ServerResult::DiscoverResult(_)
        ),
        _ => false,
    }
}

/// Writes queued lines in order and tells each sender how it went.
async fn write_lines<W: AsyncWrite + Unpin>(
    mut write: W,
    mut rx: mpsc::UnboundedReceiver<Outgoing>,
) {
    while let Some((bytes, done)) = rx.recv().await {
        let result = match write.write_all(&bytes).await {
            Ok(()) => write.flush().await,
            Err(e) => Err(e),
        };
        let failed = result.is_err();
        if let Some(done) = done {
            let _ = done.send(result);
        }
        if failed {
            tracing::info!("stdout closed; no more answers");
            return;
        }
    }
}

impl<R: AsyncRead + Unpin + Send> Transport<RoleServer> for LineTransport<R> {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleServer>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if starts_session(&item) {
            self.started.store(true, Ordering::Relaxed);
        }
        let answered = match &item {
            JsonRpcMessage::Response(r) => Some(&r.id),
            JsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        if let Some(id) = answered {
            self.in_flight
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id_key(id));
        }
        // Queued now, so lines go out in the order rmcp sends them.
        let queued = serde_json::to_vec(&item)
            .map_err(std::io::Error::other)
            .and_then(|mut bytes| {
                bytes.push(b'\n');
                let (done, wait) = oneshot::channel();
                let out = self.out.as_ref().ok_or_else(closed)?;
                out.send((bytes, Some(done))).map_err(|_| closed())?;
                Ok(wait)
            });
        async move {
            match queued {
                Ok(wait) => wait.await.unwrap_or_else(|_| Err(closed())),
                Err(e) => Err(e),
            }
        }
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleServer>> {
        loop {
            match self.next_line().await? {
                Line::TooLong => {
                    tracing::warn!("refused a line longer than {MAX_FRAME_BYTES} bytes");
                    self.answer(&error_answer(
                        Value::Null,
                        INVALID_REQUEST,
                        format!(
                            "Invalid Request: message longer than the limit of {} MiB ({MAX_FRAME_BYTES} bytes)",
                            MAX_FRAME_BYTES >> 20
                        ),
                    ));
                }
                Line::Whole => {
                    let line = std::mem::take(&mut self.line);
                    let body = line.strip_suffix(b"\n").unwrap_or(&line);
                    let verdict = judge(body, self.started.load(Ordering::Relaxed));
                    // Keep the buffer's capacity for the next line.
                    self.line = line;
                    self.line.clear();
                    match verdict {
                        Verdict::Pass(msg) => {
                            if let Some(msg) = self.pass(*msg) {
                                return Some(msg);
                            }
                        }
                        Verdict::Answer(answer) => {
                            tracing::debug!(%answer, "answered a faulty message");
                            self.answer(&answer);
                        }
                        Verdict::Ignore => {}
                    }
                }
            }
        }
    }

    async fn close(&mut self) -> Result<(), Self::Error> {
        // The writer task ends once it has written what is queued.
        self.out = None;
        Ok(())
    }
}

fn closed() -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::BrokenPipe, "stdout is closed")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code_and_id(v: &Verdict) -> (i64, Value) {
        match v {
            Verdict::Answer(a) => (a["error"]["code"].as_i64().unwrap_or(0), a["id"].clone()),
            other => panic!("expected an answer, got {other:?}"),
        }
    }

    #[test]
    fn depth_counts_brackets_outside_strings() {
        assert!(!deeper_than(br#"{"a":"[[[[[[[[[[[["}"#, 3));
        assert!(deeper_than(b"[[[[1]]]]", 3));
        assert!(!deeper_than(b"[[[1]]]", 3));
        assert!(!deeper_than(br#"{"a":"\"[[[["}"#, 1));
    }

    #[test]
    fn faulty_lines_get_the_right_code_and_id() {
        let cases: &[(&[u8], i64, Value)] = &[
            (b"{not json", PARSE_ERROR, Value::Null),
            (
                br#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
                PARSE_ERROR,
                Value::Null,
            ),
            (
                br#"{"jsonrpc":"1.0","id":7,"method":"ping"}"#,
                INVALID_REQUEST,
                json!(7),
            ),
            (
                br#"{"jsonrpc":"2.0","id":"a","method":5}"#,
                INVALID_REQUEST,
                json!("a"),
            ),
            (
                br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
                INVALID_REQUEST,
                Value::Null,
            ),
            (
                br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                INVALID_REQUEST,
                json!(1.5),
            ),
            (br#"{"jsonrpc":"2.0","id":3}"#, INVALID_REQUEST, json!(3)),
            (b"42", INVALID_REQUEST, Value::Null),
            (b"[]", INVALID_REQUEST, Value::Null),
            (
                br#"{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":5}}"#,
                INVALID_PARAMS,
                json!(9),
            ),
        ];
        for (line, code, id) in cases {
            let got = code_and_id(&judge(line, true));
            assert_eq!(
                got,
                (*code, id.clone()),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn notifications_that_do_not_fit_get_nothing() {
        let line = br#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}"#;
        assert!(matches!(judge(line, true), Verdict::Ignore));
        let early = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        assert!(matches!(judge(early, false), Verdict::Ignore));
        assert!(matches!(judge(early, true), Verdict::Pass(_)));
    }

    #[test]
    fn a_batch_is_refused_per_request() {
        let line =
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"},5]"#;
        let Verdict::Answer(Value::Array(answers)) = judge(line, true) else {
            panic!("a batch gets an array");
        };
        let ids: Vec<Value> = answers.iter().map(|a| a["id"].clone()).collect();
        assert_eq!(ids, vec![json!(1), Value::Null]);
    }
}
