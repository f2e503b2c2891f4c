//! A seccomp filter for what Landlock leaves open: with the network off it refuses every socket
//! but a Unix one (UDP, raw, netlink; TCP too, on kernels without Landlock's TCP rules), and
//! where Landlock cannot tell named Unix sockets apart it refuses Unix sockets unless the config
//! allows them (`socketpair` still works). io_uring (which could open sockets behind its back)
//! and 32-bit and x32 system calls (which it could not check) are refused too.

use std::sync::Arc;

use crate::sys::FilterInstruction as Instruction;

const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const JGE_K: u16 = 0x35;
const RET_K: u16 = 0x06;
const RET_ALLOW: u32 = 0x7fff_0000;
const RET_ERRNO: u32 = 0x0005_0000;
/// Offsets in `struct seccomp_data`: the call's number, its architecture, its first argument.
const NR: u32 = 0;
const ARCH: u32 = 4;
const ARG0: u32 = 16;
/// x32 calls carry this bit in their number.
const X32_BIT: u32 = 0x4000_0000;

#[cfg(target_arch = "x86_64")]
const AUDIT_ARCH: u32 = 0xC000_003E;
#[cfg(target_arch = "aarch64")]
const AUDIT_ARCH: u32 = 0xC000_00B7;

const fn op(code: u16, jt: u8, jf: u8, k: u32) -> Instruction {
    libc::sock_filter { code, jt, jf, k }
}

/// The filter refusing sockets as asked (`network`: other families allowed; `unix`: Unix
/// sockets allowed), where Tandem knows this architecture's system call numbers; `None` when
/// nothing is to be refused.
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
pub(super) fn sockets(network: bool, unix: bool) -> Option<Arc<[Instruction]>> {
    if network && unix {
        return None;
    }
    let deny = RET_ERRNO | libc::EACCES as u32;
    // Instruction 10 allows, 11 refuses; jumps count from the instruction after.
    let to = |from: u8, target: u8| target - from - 1;
    let unix_target = if unix { 10 } else { 11 };
    let other_target = if network { 10 } else { 11 };
    Some(Arc::new([
        op(LD_W_ABS, 0, 0, ARCH),
        op(JEQ_K, 1, 0, AUDIT_ARCH),
        op(RET_K, 0, 0, deny),
        op(LD_W_ABS, 0, 0, NR),
        op(JGE_K, to(4, 11), 0, X32_BIT),
        op(JEQ_K, to(5, 8), 0, libc::SYS_socket as u32),
        op(JEQ_K, to(6, 11), 0, libc::SYS_io_uring_setup as u32),
        op(RET_K, 0, 0, RET_ALLOW),
        op(LD_W_ABS, 0, 0, ARG0),
        op(
            JEQ_K,
            to(9, unix_target),
            to(9, other_target),
            libc::AF_UNIX as u32,
        ),
        op(RET_K, 0, 0, RET_ALLOW),
        op(RET_K, 0, 0, deny),
    ]))
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
pub(super) fn sockets(_network: bool, _unix: bool) -> Option<Arc<[Instruction]>> {
    None
}

/// Whether this architecture gets the filter.
pub(super) const AVAILABLE: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));
