//! The on-disk pipeline cache: written when a module goes, read when it is loaded again,
//! ignored when damaged.

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use ptxvk_runtime::{Context, DeviceBuffer, LaunchConfig};

fn run_saxpy(ctx: &Context) -> bool {
    let m = ctx
        .load_ptx("saxpy.ptx", &common::shader("saxpy.ptx"))
        .unwrap();
    let loaded = m.pipeline_cache_loaded();
    let k = m.kernel("saxpy").unwrap();
    let x = DeviceBuffer::from_slice(ctx, &[2.0f32; 300]).unwrap();
    let y = DeviceBuffer::from_slice(ctx, &[1.0f32; 300]).unwrap();
    k.launch(
        &LaunchConfig::for_num_elems(300, 64),
        &[300u32.into(), 3.0f32.into(), (&x).into(), (&y).into()],
    )
    .unwrap();
    assert!(y.to_vec().unwrap().iter().all(|&v| v == 7.0));
    loaded
}

fn cache_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for d in std::fs::read_dir(dir).unwrap() {
        let d = d.unwrap().path();
        if d.is_dir() {
            for f in std::fs::read_dir(&d).unwrap() {
                out.push(f.unwrap().path());
            }
        }
    }
    out.sort();
    out
}

#[test]
fn pipelines_are_cached_on_disk_per_module_and_device() {
    let dir = common::temp_dir("pipeline-cache");
    let mut opts = common::options();
    opts.pipeline_cache_dir = Some(dir.clone());
    let ctx = Context::new(&opts).unwrap();
    // The probe module and saxpy each get a file once they are dropped.
    assert!(!run_saxpy(&ctx), "nothing cached yet");
    let files = cache_files(&dir);
    assert_eq!(files.len(), 2, "{files:?}");
    let device_dir = files[0]
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy();
    let uuid = &ctx.info().pipeline_cache_uuid;
    assert!(device_dir.ends_with(uuid.as_str()), "{device_dir}");
    // Loaded the second time, in a new context too.
    assert!(run_saxpy(&ctx));
    let ctx2 = Context::new(&opts).unwrap();
    assert!(run_saxpy(&ctx2));
    // A damaged file is ignored (and replaced), never handed to the driver.
    for f in &files {
        let mut bytes = std::fs::read(f).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 0xff;
        std::fs::write(f, &bytes).unwrap();
    }
    assert!(!run_saxpy(&ctx2));
    for f in &files {
        std::fs::write(f, b"PTXVKPC1 short").unwrap();
    }
    assert!(!run_saxpy(&ctx2));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_cache_file_that_cannot_be_written_leaves_nothing_behind() {
    let dir = common::temp_dir("pipeline-cache-unwritable");
    let mut opts = common::options();
    opts.pipeline_cache_dir = Some(dir.clone());
    let ctx = Context::new(&opts).unwrap();
    assert!(!run_saxpy(&ctx));
    let files = cache_files(&dir);
    assert_eq!(files.len(), 2, "{files:?}");
    // A directory where each file was: reading it fails, and so does renaming the new file
    // over it when the module is dropped.
    for f in &files {
        std::fs::remove_file(f).unwrap();
        std::fs::create_dir(f).unwrap();
    }
    assert!(!run_saxpy(&ctx));
    let ctx2 = Context::new(&opts).unwrap();
    assert!(!run_saxpy(&ctx2));
    // The kernels ran; no temporary file is left beside the cache's entries.
    assert_eq!(cache_files(&dir), files);
    assert!(files.iter().all(|f| f.is_dir()));
    let _ = std::fs::remove_dir_all(&dir);
}
