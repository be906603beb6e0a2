//! CUDA 12's soname, and every exported symbol versioned by it as NVIDIA's libcudart.so.12
//! versions them (GNU ld's `--default-symver`; lld has no such option, so GNU ld links it).

fn main() {
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-cdylib-link-arg=-fuse-ld=bfd");
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcudart.so.12");
        println!("cargo:rustc-cdylib-link-arg=-Wl,--default-symver");
    }
}
