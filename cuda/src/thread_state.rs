//! What the library keeps per calling thread: its stack of current contexts and its last
//! launch's lookups ([`crate::launch_cache`]). They are one thread-local so that a launch,
//! which reads both, looks thread-local storage up once: in a shared library each lookup is a
//! call to `__tls_get_addr`.

use std::cell::RefCell;

use crate::launch_cache::Cache;

pub struct ThreadState {
    /// The context stack, the current context on top (`cuCtxPushCurrent`/`PopCurrent`).
    pub stack: RefCell<Vec<usize>>,
    pub launch: RefCell<Cache>,
}

thread_local! {
    pub static THREAD: ThreadState = const {
        ThreadState {
            stack: RefCell::new(Vec::new()),
            launch: RefCell::new(Cache::EMPTY),
        }
    };
}
