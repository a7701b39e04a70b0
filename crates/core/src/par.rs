//! Work on many small items split over the cores, order kept: a log of thousands of short
//! processes has thousands of runs to summarise and print.

/// `f` over consecutive chunks of `items`, one chunk per core, results in order. One chunk on
/// the calling thread when there is one core or fewer than `min` items (threads would cost
/// more than they save).
pub fn chunks<T: Sync, R: Send>(
    items: &[T],
    min: usize,
    f: impl Fn(usize, &[T]) -> R + Sync,
) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    if threads < 2 || items.len() < min.max(2) {
        return vec![f(0, items)];
    }
    let per = items.len().div_ceil(threads);
    let f = &f;
    std::thread::scope(|scope| {
        let parts: Vec<_> = items
            .chunks(per)
            .enumerate()
            .map(|(k, part)| scope.spawn(move || f(k * per, part)))
            .collect();
        parts
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn order_and_offsets_are_kept() {
        let items: Vec<usize> = (0..1000).collect();
        let parts = super::chunks(&items, 10, |offset, part| {
            assert_eq!(part[0], offset, "a chunk's offset is its first index");
            part.to_vec()
        });
        assert_eq!(parts.concat(), items);
        assert_eq!(super::chunks(&items[..5], 10, |_, p| p.len()), vec![5]);
        assert_eq!(
            super::chunks::<usize, usize>(&[], 0, |_, p| p.len()),
            vec![0]
        );
    }
}
