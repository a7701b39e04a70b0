//! `page_density`: Green Tea's batching on this heap (gctrace=2, Go 1.25+).

use super::{finding, pct};
use super::{Ctx, Finding, Rule, Severity};

pub(super) struct PageDensity;

impl Rule for PageDensity {
    fn id(&self) -> &'static str {
        "page_density"
    }

    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>) {
        let Ctx { s, .. } = *cx;
        if let Some(scan) = &s.scan {
            if let Some(d) = scan.objects_per_span_visit {
                let (band, severity) = if d < 2.0 {
                    (
                        "little batching: most page visits scan one object",
                        Severity::Warn,
                    )
                } else if d < 8.0 {
                    ("some batching", Severity::Info)
                } else {
                    (
                        "strong batching: Green Tea is doing what it is for",
                        Severity::Info,
                    )
                };
                let large: u64 = scan
                    .classes
                    .iter()
                    .filter(|c| c.class == 0 || c.class > 512)
                    .map(|c| c.objects)
                    .sum();
                let large_share = if scan.objects > 0 {
                    large as f64 / scan.objects as f64
                } else {
                    0.0
                };
                out.push(finding(
                    self.id(),
                    severity,
                    &[],
                    format!(
                        "Green Tea scanned {:.1} objects per page visit: {band}. {} of scanned \
                         objects are over 512 B, which Green Tea never batches \
                         (mgcmark_greenteagc.go). Dense pages of small objects are where it \
                         saves (seed 000: -60% GC CPU on a scattered map); one object per visit \
                         is where it can cost more (seed 001: +39% on 768 B pointer-free \
                         objects). Bands are gcscope's heuristic.",
                        d,
                        pct(large_share)
                    ),
                ));
            }
        }
    }
}
