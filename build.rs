//! Release links: the functions a start-up and a first `session/new` run placed side by side
//! (build/hot-text.ld, written by scripts/hot-functions), so an idle agent maps few code pages,
//! and identical functions whose address no code takes folded into one (`--icf=safe`).

use std::env;

fn main() {
    println!("cargo:rerun-if-changed=build/hot-text.ld");
    let release = env::var("PROFILE").as_deref() == Ok("release");
    let linux_x86_64 = env::var("TARGET").as_deref() == Ok("x86_64-unknown-linux-gnu");
    if release && linux_x86_64 {
        let dir = env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
        println!("cargo:rustc-link-arg-bins=-Wl,-T,{dir}/build/hot-text.ld");
        println!("cargo:rustc-link-arg-bins=-Wl,--icf=safe");
    }
}
