//! Works around the ACP SDK (5.0) dropping, without a word, a message whose `params` is
//! neither an object nor an array: such a request would never be answered. Every incoming line
//! is looked at here first (only its `id` and `params` are read, borrowed).

/// What becomes of an incoming line before the SDK reads it.
pub enum Verdict {
    Pass,
    /// A notification that cannot be valid: dropped (and logged).
    Drop,
    /// A request that cannot be valid: answered with this error line instead.
    Answer(String),
}

/// JSON-RPC 2.0 requires `params` to be an object or an array; the SDK drops a message whose
/// `params` is anything else without a word, leaving its request unanswered. Such a request
/// gets its Invalid Request error here instead.
pub fn check_params(line: &str) -> Verdict {
    #[derive(serde::Deserialize)]
    struct Shape<'a> {
        #[serde(borrow, default)]
        id: Option<&'a serde_json::value::RawValue>,
        #[serde(borrow, default)]
        params: Option<&'a serde_json::value::RawValue>,
    }
    let Ok(shape) = serde_json::from_str::<Shape<'_>>(line) else {
        return Verdict::Pass;
    };
    let Some(params) = shape.params.map(|p| p.get().trim_start()) else {
        return Verdict::Pass;
    };
    // Objects and arrays are what JSON-RPC allows; `null` is left to the SDK, which reads it
    // as "no params" for methods that take none.
    if params.starts_with('{') || params.starts_with('[') || params == "null" {
        return Verdict::Pass;
    }
    match shape.id {
        Some(id) => Verdict::Answer(format!(
            r#"{{"jsonrpc":"2.0","id":{},"error":{{"code":-32600,"message":"Invalid request: params must be an object or an array"}}}}"#,
            id.get()
        )),
        None => {
            tracing::warn!(
                "dropped a notification whose params are neither an object nor an array"
            );
            Verdict::Drop
        }
    }
}
