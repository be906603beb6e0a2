//! `.multicast::cluster`'s CTA mask on one-block clusters.

use crate::ast;
use crate::check::FnCx;
use crate::check::operands::TypeRule;
use crate::check::typed::Src;
use crate::diag::Diagnostic;
use crate::types::ScalarType;

/// `.multicast::cluster`'s `ctaMask` (bulk and tensor copies): bit `r` names the CTA of cluster
/// rank `r`. ptxvk's clusters hold one block, rank 0, so a constant mask naming another CTA is
/// refused; a mask in a register is read when the copy runs, its bit 0 deciding.
pub(super) fn cta_mask(cx: &mut FnCx<'_, '_>, op: &ast::Operand<'_>) -> Option<Src> {
    let mask = cx.src(op, ScalarType::B16, TypeRule::Strict)?;
    if let Src::Imm(v) = mask
        && v & 0xfffe != 0
    {
        cx.error(
            Diagnostic::error(
                op.span,
                format!(
                    "ctaMask {:#06x} names CTAs other than rank 0; ptxvk's clusters hold one block, \
                     so only bit 0 can be honoured",
                    v & 0xffff
                ),
            )
            .with_label("a one-block cluster's mask is 0 or 1"),
        );
        return None;
    }
    Some(mask)
}
