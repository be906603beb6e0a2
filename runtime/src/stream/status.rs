//! A launch's status word and the failure it reports once the launch has completed.

use std::sync::Arc;

use crate::error::Error;
use crate::memory::raw::RawBuffer;

/// A launch's status word, read once the launch has completed.
pub(crate) struct StatusCheck {
    pub buf: Arc<RawBuffer>,
    pub offset: u64,
    pub kernel: String,
    /// `KernelAbi::status_codes`.
    pub codes: Arc<Vec<String>>,
}

impl StatusCheck {
    pub(super) fn failure(&self) -> Option<Error> {
        let mut word = [0u8; 4];
        self.buf.read_mapped(self.offset, &mut word).ok()?;
        let status = u32::from_le_bytes(word);
        if status == 0 {
            return None;
        }
        let reason = self
            .codes
            .get(status as usize - 1)
            .cloned()
            .unwrap_or_else(|| format!("unknown status {status}"));
        Some(Error::KernelFailed {
            kernel: self.kernel.clone(),
            reason,
        })
    }
}
