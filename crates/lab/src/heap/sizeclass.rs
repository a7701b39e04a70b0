//! Go's size classes (`internal/runtime/gc/sizeclasses.go`, unchanged from Go 1.16 to 1.27).
//!
//! Span geometry decides page scan density, so the lab uses Go's table as is: the same object
//! sizes, the same span sizes, the same objects per span.

/// Size classes, class 0 ("large") included: the length of every per-class table.
pub const NUM_CLASSES: usize = 68;

/// Object size in bytes per class; class 0 is "large" (its own span).
pub const CLASS_SIZE: [u32; NUM_CLASSES] = [
    0, 8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320,
    352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792,
    2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728,
    10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672,
    32768,
];

/// Pages (8 KiB) per span per class.
pub const CLASS_PAGES: [u8; NUM_CLASSES] = [
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 2, 1, 2, 1, 2, 1, 3, 2, 3, 1, 3, 2, 3, 4, 5, 6, 1, 7, 6, 5, 4, 3, 5, 7, 2, 9, 7, 5, 8,
    3, 10, 7, 4,
];

pub const PAGE_BYTES: u32 = 8192;
pub const MAX_SMALL: u32 = 32768;
/// Objects up to this size keep their pointer bitmap in the span (`heapBitsInSpan`); larger
/// ones carry a one-word header naming their type (Go's malloc header).
pub const MAX_HEAP_BITS_IN_SPAN: u32 = 512;
/// Bytes Go reserves at the end of a span with inline mark bits: 128 for the pointer bitmap,
/// 128 for `spanInlineMarkBits` (`mheap.go:1473-1483`).
pub const INLINE_RESERVE: u32 = 256;

/// A span class: a size class and whether its objects are pointer-free (Go's `spanClass`),
/// the index of the per-class mcache slots and partial-span lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpanClass(u8);

impl SpanClass {
    /// Span classes: every size class, with and without pointers.
    pub const COUNT: usize = NUM_CLASSES * 2;

    #[must_use]
    pub fn new(class: u8, noscan: bool) -> SpanClass {
        SpanClass(class * 2 + noscan as u8)
    }

    #[must_use]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// The smallest class holding `bytes`. The 8-byte class is skipped: it has no inline mark bits
/// in Go (1024 objects do not fit 504 bits) and no lab workload needs it.
#[must_use]
pub fn class_of(bytes: u32) -> Option<u8> {
    if bytes > MAX_SMALL {
        return None;
    }
    let bytes = bytes.max(16);
    // A few dozen entries: a binary search is not worth its code.
    CLASS_SIZE.iter().position(|&s| s >= bytes).map(|c| c as u8)
}

/// Does this class use Go 1.26's inline mark bits (`gcUsesSpanInlineMarkBits`: 16-512 B)?
/// Every such class has one-page spans, so a page of an inline span is its first page.
#[must_use]
pub const fn inline_bits(class: u8) -> bool {
    let s = CLASS_SIZE[class as usize];
    s >= 16 && s <= MAX_HEAP_BITS_IN_SPAN
}

/// Objects per span.
#[must_use]
pub const fn nelems(class: u8) -> u32 {
    let size = CLASS_SIZE[class as usize];
    let span = CLASS_PAGES[class as usize] as u32 * PAGE_BYTES;
    if inline_bits(class) {
        (span - INLINE_RESERVE) / size
    } else {
        span / size
    }
}

/// Go's `SizeClassToDivMagic`: `offset * magic >> 32` is `offset / size` for any byte offset
/// inside a span, without a division (`tryDeferToSpanScan` finds an object index this way).
pub const DIV_MAGIC: [u32; NUM_CLASSES] = {
    let mut m = [0u32; NUM_CLASSES];
    let mut c = 1;
    while c < NUM_CLASSES {
        m[c] = u32::MAX / CLASS_SIZE[c] + 1;
        c += 1;
    }
    m
};

/// Objects per span, per class (0 for class 0).
pub const NELEMS: [u32; NUM_CLASSES] = {
    let mut n = [0u32; NUM_CLASSES];
    let mut c = 1;
    while c < NUM_CLASSES {
        n[c] = nelems(c as u8);
        c += 1;
    }
    n
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_matches_go() {
        // mheap.go: a 16-byte inline span holds (8192-256)/16 = 496 objects.
        assert_eq!(nelems(class_of(16).unwrap()), 496);
        assert_eq!(nelems(class_of(32).unwrap()), 248);
        // 768 B has no inline bits: 10 per page, like Go.
        assert_eq!(nelems(class_of(768).unwrap()), 10);
        assert_eq!(class_of(776), class_of(896));
        assert_eq!(class_of(1), class_of(16));
        assert_eq!(class_of(40_000), None);
        assert!(inline_bits(class_of(512).unwrap()));
        assert!(!inline_bits(class_of(513).unwrap()));
        // Every inline class fits the 63-byte (504-bit) mark bitmap, in a one-page span.
        for c in 1..NUM_CLASSES as u8 {
            if inline_bits(c) {
                assert!(nelems(c) <= 504, "class {c}");
                assert_eq!(CLASS_PAGES[c as usize], 1, "class {c}");
            }
        }
        // The division magic is exact for every byte offset of every span.
        for c in 1..NUM_CLASSES {
            let span = CLASS_PAGES[c] as u64 * PAGE_BYTES as u64;
            for off in (0..span).step_by(8) {
                let idx = (off * DIV_MAGIC[c] as u64) >> 32;
                assert_eq!(idx, off / CLASS_SIZE[c] as u64, "class {c} offset {off}");
            }
        }
    }
}
