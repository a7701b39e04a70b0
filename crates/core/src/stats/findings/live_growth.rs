//! `live_growth`: the live heap still rising over the last doublings of the cycle count (in
//! cycles, not wall seconds: a loaded machine stretches seconds, not cycles).

use super::facts::{bucket_span, mb};
use super::facts::{Bucket, Ev, MIB};
use super::finding;
use super::{Ctx, Finding, Rule, Severity};

pub(super) struct LiveGrowth;

impl Rule for LiveGrowth {
    fn id(&self) -> &'static str {
        "live_growth"
    }

    fn check(&self, cx: &Ctx, out: &mut Vec<Finding>) {
        let Ctx { s, f, .. } = *cx;
        let full: Vec<(usize, &Bucket)> = f
            .buckets
            .iter()
            .enumerate()
            .filter(|(_, b)| b.n >= 3)
            .collect();
        // In cycles, not seconds: from gc 32 on the last three buckets span at least 8, 16
        // and 16 cycles.
        if s.last_cycle >= 32 && full.len() >= 3 {
            let last3 = &full[full.len() - 3..];
            let mean = |b: &Bucket| b.live_mb as f64 * MIB as f64 / f64::from(b.n);
            let (a, b, c) = (mean(last3[0].1), mean(last3[1].1), mean(last3[2].1));
            if b >= 1.1 * a && c >= 1.25 * b && c >= a + 4.0 * MIB as f64 {
                out.push(finding(
                    self.id(),
                    Severity::Warn,
                    &[last3[1].1.first, last3[2].1.first].map(|num| Ev {
                        num,
                        ..Ev::default()
                    }),
                    format!(
                        "The live heap keeps rising: on average {} MB in {}, {} MB in {}, {} MB in \
                         {} (buckets of doubling cycle numbers). A heap that is still growing \
                         after that many cycles can be a leak, or a \
                         cache or queue filling up. Not claimed: a leak (only a heap profile shows \
                         what is retained).",
                        mb(a),
                        bucket_span(last3[0].0),
                        mb(b),
                        bucket_span(last3[1].0),
                        mb(c),
                        bucket_span(last3[2].0)
                    ),
                ));
            }
        }
    }
}
