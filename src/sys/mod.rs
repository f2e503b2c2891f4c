//! Every system call Tandem makes, behind safe functions (each `unsafe` block says why it is
//! sound): process groups and signals, dying with the parent, and on Linux the confinement a
//! child takes on before exec. The sandbox decides what to confine; this module only does it.

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
