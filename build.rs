//! Release links: the functions a start-up and a first `session/new` run placed side by side
//! (build/hot-text.ld, written by scripts/hot-functions), so an idle agent maps few code pages,
//! and identical functions whose address no code takes folded into one (`--icf=safe`).

use std::env;
use std::path::Path;

fn main() {
    println!("cargo:rerun-if-changed=build/hot-text.ld");
    let release = env::var("PROFILE").as_deref() == Ok("release");
    let linux_x86_64 = env::var("TARGET").as_deref() == Ok("x86_64-unknown-linux-gnu");
    if release && linux_x86_64 {
        // A copy in OUT_DIR: the link never depends on where the checkout is (a target folder
        // shared between checkouts reuses this script's output).
        let out = Path::new(&env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("hot-text.ld");
        std::fs::copy("build/hot-text.ld", &out).expect("build/hot-text.ld is readable");
        println!("cargo:rustc-link-arg-bins=-Wl,-T,{}", out.display());
        println!("cargo:rustc-link-arg-bins=-Wl,--icf=safe");
    }
}
