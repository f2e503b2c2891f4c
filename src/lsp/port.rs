//! The tools' view of the language servers and formatters for one session: which apply to a
//! file (from the session's config and cwd), its errors after a change, the formatter's run,
//! and the `lsp` tool's questions, all through the process's shared servers.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::future::BoxFuture;

use super::catalog::{self, ServerSpec};
use super::diagnostics::{block, count};
use super::format::{self, FormatterSpec};
use super::hub::{Lsp, Unavailable};
use super::position::{path_of, uri};
use super::{locate, navigate};
use crate::sandbox::Policy;
use crate::tool::ports::{Answer, CodePort, Formatting, Inquiry};

/// After the server's answer, how long to wait for a further stage by default.
const SETTLE: Duration = Duration::from_millis(15);
/// The most an edit waits for errors by default.
const WAIT: Duration = Duration::from_millis(3000);
/// The longest a file read waits for its server to start before opening the file in it.
const WARM_WAIT: Duration = Duration::from_secs(120);
/// After the changed file's answer, how long a pause in publications ends the wait for the
/// other files it broke.
const OTHER_FILES_GAP: Duration = Duration::from_millis(1);
/// How many other files with new errors are named.
const NAMED_FILES: usize = 5;

/// A server that serves a file: its definition, its program, its root, its sandbox if any.
struct Target {
    spec: ServerSpec,
    program: PathBuf,
    root: PathBuf,
    /// The workspace's roots other than the one the file lies in: the server's other folders.
    others: Vec<PathBuf>,
    sandbox: Option<Arc<Policy>>,
}

impl Target {
    async fn server(
        &self,
        hub: &Lsp,
        deadline: Instant,
    ) -> Result<Arc<super::server::Server>, Unavailable> {
        let how = (&self.spec, self.program.as_path(), self.sandbox.as_ref());
        hub.server(how, (&self.root, &self.others), deadline).await
    }
}

/// One session's language servers and formatters.
pub struct SessionCode {
    hub: Arc<Lsp>,
    /// The project's real folder.
    top: PathBuf,
    /// The workspace's other roots (real folders): their files get servers as the project's
    /// do, each rooted in its own folder.
    others: Vec<PathBuf>,
    /// The session's `bash` sandbox: servers found in the project's own folders start in it,
    /// and every server of a folder the person has not trusted (it may run the project's code).
    sandbox: Arc<Policy>,
    standing: crate::config::Standing,
    servers: Option<Arc<[ServerSpec]>>,
    formatters: Option<Vec<FormatterSpec>>,
    settle: Duration,
    wait: Duration,
}

impl SessionCode {
    /// What `config` allows for a session in `cwd` (with the workspace's other `roots`); looks
    /// nothing up until a file is touched.
    pub fn new(
        hub: Arc<Lsp>,
        (cwd, roots): (&Path, &[PathBuf]),
        loaded: &crate::config::LoadedConfig,
        sandbox: Arc<Policy>,
    ) -> Self {
        let config = &loaded.config;
        let timing = config.diagnostics.unwrap_or_default();
        Self {
            hub,
            sandbox,
            standing: loaded.standing.clone(),
            top: std::fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_owned()),
            others: roots
                .iter()
                .map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| r.clone()))
                .collect(),
            servers: catalog::servers(config),
            formatters: format::formatters(config),
            settle: timing.settle_ms.map_or(SETTLE, Duration::from_millis),
            wait: timing.wait_ms.map_or(WAIT, Duration::from_millis),
        }
    }

    /// Every root of the workspace, the project's first.
    fn roots(&self) -> impl Iterator<Item = &PathBuf> {
        std::iter::once(&self.top).chain(&self.others)
    }

    /// The root of the workspace `path` lies in: the project, or another root.
    fn top_of(&self, path: &Path) -> Option<&Path> {
        self.roots()
            .find(|top| path.starts_with(top))
            .map(PathBuf::as_path)
    }

    /// The servers of `path` (a file in the workspace), each with its program, root and
    /// sandbox.
    fn targets(&self, path: &Path) -> Vec<Target> {
        let (Some(servers), Some(top)) = (self.servers.as_ref(), self.top_of(path)) else {
            return Vec::new();
        };
        catalog::for_file(servers, path, top, &self.standing)
            .into_iter()
            .filter_map(|(spec, program)| {
                let root = match locate::root(path, &spec.roots, top) {
                    Some(root) => root,
                    None if spec.needs_root => return None,
                    None => top.to_owned(),
                };
                // A program in the workspace may be the model's own, and any server may run an
                // untrusted project's code (build scripts): those run as bash runs.
                let confined = program.starts_with(top) || !self.standing.is_trusted();
                let sandbox = confined.then(|| self.sandbox.clone());
                Some(Target {
                    spec: spec.clone(),
                    program,
                    root,
                    others: self
                        .roots()
                        .filter(|r| r.as_path() != top)
                        .cloned()
                        .collect(),
                    sandbox,
                })
            })
            .collect()
    }

    fn relative(&self, path: &Path) -> String {
        crate::paths::relative_to(&self.top, path)
    }

    /// The errors of `path` (now `text`) from one server, and a line for new errors elsewhere.
    async fn check_with(
        &self,
        target: &Target,
        path: &Path,
        text: &str,
        deadline: Instant,
    ) -> Vec<String> {
        let (spec, root) = (&target.spec, &target.root);
        let server = match target.server(&self.hub, deadline).await {
            Ok(server) => server,
            Err(Unavailable::Starting) => {
                tracing::debug!(server = %spec.name, "still starting; this edit goes unchecked");
                return Vec::new();
            }
            Err(Unavailable::Off(_)) => {
                return self.hub.take_notice(root, &spec.name).into_iter().collect();
            }
        };
        let store = &server.diagnostics;
        let before = store.error_counts();
        let since = store.mark();
        let version = server.sync(path, text);
        let own = uri(path);
        let mut notes = Vec::new();
        let answer = store.answer(&own, version, since, self.settle, deadline);
        let answered = tokio::select! {
            answered = answer => answered,
            () = server.exited() => {
                // The slot restarts it or turns it off (with a notice) just after.
                tokio::time::sleep(Duration::from_millis(150)).await;
                notes.extend(self.hub.take_notice(root, &spec.name));
                return notes;
            }
        };
        if let Some(answered) = &answered {
            notes.extend(block(
                &spec.name,
                &self.relative(path),
                text,
                &answered.items,
            ));
            if !answered.settled {
                store.quiet(OTHER_FILES_GAP, self.settle).await;
            }
        }
        let mut grown: Vec<(String, usize)> = store
            .error_counts()
            .into_iter()
            .filter(|(uri, n)| *uri != own && before.get(uri).is_none_or(|b| n > b))
            .filter_map(|(uri, n)| {
                let path = path_of(&uri)?;
                self.top_of(&path).map(|_| (self.relative(&path), n))
            })
            .collect();
        if !grown.is_empty() {
            grown.sort();
            let named: Vec<String> = grown
                .iter()
                .take(NAMED_FILES)
                .map(|(path, n)| format!("{path} ({n})"))
                .collect();
            let more = grown.len().saturating_sub(NAMED_FILES);
            let more = if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            };
            notes.push(format!(
                "Errors also appeared in {} of the project: {}{more}.",
                count(grown.len(), "other file"),
                named.join(", ")
            ));
        }
        notes
    }
}

impl CodePort for SessionCode {
    fn opened(&self, path: &Path, text: &str) {
        for target in self.targets(path) {
            let hub = self.hub.clone();
            let (path, text) = (path.to_owned(), text.to_owned());
            tokio::spawn(async move {
                let deadline = Instant::now() + WARM_WAIT;
                if let Ok(server) = target.server(&hub, deadline).await {
                    server.open_if_new(&path, &text);
                }
            });
        }
    }

    fn format<'a>(&'a self, path: &'a Path, sandbox: &'a Policy) -> BoxFuture<'a, Formatting> {
        Box::pin(async move {
            let Some(specs) = &self.formatters else {
                return Formatting::None;
            };
            let top = self.top_of(path).unwrap_or(&self.top);
            let Some((spec, program)) = format::for_file(specs, path, top, &self.standing) else {
                return Formatting::None;
            };
            let Ok(written) = tokio::fs::read_to_string(path).await else {
                return Formatting::None;
            };
            format::run(spec, &program, path, top, &written, sandbox).await
        })
    }

    fn check<'a>(&'a self, path: &'a Path, text: &'a str) -> BoxFuture<'a, Option<String>> {
        Box::pin(async move {
            let deadline = Instant::now() + self.wait;
            let targets = self.targets(path);
            let checks = targets
                .iter()
                .map(|t| self.check_with(t, path, text, deadline));
            let notes: Vec<String> = futures::future::join_all(checks)
                .await
                .into_iter()
                .flatten()
                .collect();
            (!notes.is_empty()).then(|| notes.join("\n\n"))
        })
    }

    fn inquire(&self, inquiry: Inquiry) -> BoxFuture<'_, Result<Answer, String>> {
        Box::pin(async move {
            let targets = self.targets(&inquiry.path);
            let Some(target) = targets.first() else {
                return Err(format!(
                    "No language server serves {} here (none of those Tandem knows for its kind of file is installed, or the config turns them off).",
                    self.relative(&inquiry.path)
                ));
            };
            let deadline = Instant::now() + WARM_WAIT.min(Duration::from_secs(30));
            let spec = &target.spec;
            let server = match target.server(&self.hub, deadline).await {
                Ok(server) => server,
                Err(Unavailable::Starting) => {
                    return Err(format!(
                        "The language server {} is still starting; try again shortly.",
                        spec.name
                    ));
                }
                Err(Unavailable::Off(why)) => {
                    return Err(format!("The language server {} is off: {why}", spec.name));
                }
            };
            let text = tokio::fs::read_to_string(&inquiry.path)
                .await
                .unwrap_or_default();
            server.sync(&inquiry.path, &text);
            navigate::ask(&server, &inquiry, &text).await
        })
    }
}
