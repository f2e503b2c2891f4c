//! Everything Tandem asks of the operating system that differs between systems, behind safe
//! functions: process groups and signals, dying with the parent, and the sandbox's kernel side
//! (Landlock, seccomp, namespaces). `linux` is built and tested; `other` is the fallback.

mod posix;
pub use posix::*;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
pub use linux::*;

#[cfg(not(target_os = "linux"))]
mod other;
#[cfg(not(target_os = "linux"))]
pub use other::*;
