//! The build information a Go linker embeds in every executable (what `go version -m BINARY`
//! prints), read from the file without running it.
//!
//! Why: the same gctrace text means different things depending on the runtime that printed it.
//! Green Tea marking is on by default from Go 1.26, only an experiment in 1.25 and absent
//! before; `GODEBUG=gctrace=2` prints `scan:` lines only from 1.25. The binary knows both
//! before it runs.
//!
//! The format is the one Go's `debug/buildinfo` reads and `cmd/link` (`Link.buildinfo`)
//! writes: a 32-byte header at a 16-byte aligned address,
//!
//! ```text
//! 0   "\xff Go buildinf:"   14 bytes of magic
//! 14  pointer size          4 or 8
//! 15  flags                 bit 0: big-endian pointers; bit 1: strings inline (Go 1.18+)
//! 16  zero padding          (before Go 1.18: pointers to the two strings)
//! ```
//!
//! and, with the inline flag, two uvarint-length-prefixed strings right after it: the
//! toolchain version (`runtime.Version()`, e.g. `go1.27.3`, with `-X:nogreenteagc` or
//! ` X:greenteagc` appended by the linker when experiments differ from the default) and the
//! module info, framed by 16-byte sentinels, one tab-separated record a line (`path`, `mod`,
//! `dep`, `=>`, `build KEY=VALUE`).
//!
//! Where the blob is: in an ELF file, the `.go.buildinfo` section, which is where Go's own
//! reader looks; in any other file (PE, Mach-O, ...), the first 16-byte aligned magic in the
//! file that starts a well-formed blob. The file is read in 1 MiB pieces, not mapped.
//!
//! Not read: the pre-1.18 format, whose header holds virtual addresses of the strings. Turning
//! those into file offsets needs each executable format's segment table, for toolchains that
//! predate Green Tea and `scan:` lines by years; such binaries are reported as having no
//! build info (`None`).

use std::borrow::Cow;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::Path;

/// What a Go binary says about how it was built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoBuild {
    /// e.g. "go1.27.3" (runtime.Version() of the binary, without any " X:..." suffix)
    pub version: String,
    /// GOEXPERIMENT as built, e.g. Some("nogreenteagc"); None when the build setting is
    /// absent. The `build GOEXPERIMENT=` setting when the module info has it, otherwise the
    /// experiment list the linker appended to the version (`-X:` / ` X:`).
    pub experiment: Option<String>,
    /// main module path ("path" line of modinfo), if present
    pub main_path: Option<String>,
}

impl GoBuild {
    /// (major, minor) e.g. (1, 27), None if unparsable (devel builds)
    #[must_use]
    pub fn minor(&self) -> Option<(u32, u32)> {
        // Release versions only: "go1.27.3", "go1.21rc2", "go1.27.3-custom". A devel build
        // ("devel go1.27-abcdef ...") names the branch it forked from, not what it contains.
        let rest = self.version.strip_prefix("go")?;
        let (major, rest) = leading_number(rest)?;
        let (minor, _) = leading_number(rest.strip_prefix('.')?)?;
        Some((major, minor))
    }

    /// Green Tea marking in this binary: Some(true/false) from version + experiment (Go 1.26+
    /// default on unless nogreenteagc; 1.25 only with GOEXPERIMENT=greenteagc; older never),
    /// None if unknown
    #[must_use]
    pub fn green_tea(&self) -> Option<bool> {
        let (major, minor) = self.minor()?;
        if major != 1 {
            return None;
        }
        let mut on = match minor {
            // A toolchain without the experiment refuses GOEXPERIMENT=greenteagc at build
            // time, so whatever the setting says cannot have turned it on.
            0..=24 => return Some(false),
            25 => false,
            _ => true,
        };
        // Applied in order as internal/buildcfg does: the last mention wins, and "none"
        // resets every experiment flag to off (Green Tea included).
        for name in self.experiment.iter().flat_map(|e| e.split(',')) {
            match name.trim() {
                "greenteagc" => on = true,
                "nogreenteagc" | "none" => on = false,
                _ => {}
            }
        }
        Some(on)
    }

    /// a short label, e.g. "go1.27.3 GOEXPERIMENT=nogreenteagc"
    #[must_use]
    pub fn label(&self) -> String {
        match &self.experiment {
            Some(e) => format!("{} GOEXPERIMENT={e}", self.version),
            None => self.version.clone(),
        }
    }
}

/// Ok(None) when the file is not a Go binary (no build info); Err only for I/O errors (say the path).
///
/// Anything but a regular file (a directory, a device, a FIFO) is Ok(None), unread.
pub fn read(path: &Path) -> io::Result<Option<GoBuild>> {
    let with_path = |e: io::Error| {
        io::Error::new(
            e.kind(),
            format!("{}: {e}", gcscope_model::units::path(path)),
        )
    };
    // Read, not mapped: `go build` rewrites an existing output in place (O_TRUNC) whenever it
    // copies rather than renames, as it does for a link result from its build cache, and a
    // mapped file truncated under us is a SIGBUS rather than an error.
    // Only regular files: a directory is not a Go binary, and a device or a FIFO could block
    // or never end.
    if !std::fs::metadata(path).map_err(with_path)?.is_file() {
        return Ok(None);
    }
    let file = std::fs::File::open(path).map_err(with_path)?;
    find(&mut FileAt(file)).map_err(with_path)
}

/// same, from bytes (for tests)
#[must_use]
pub fn parse(bytes: &[u8]) -> Option<GoBuild> {
    // Reading a slice cannot fail.
    find(&mut BytesAt(bytes)).ok().flatten()
}

const MAGIC: &[u8] = b"\xff Go buildinf:";
const ALIGN: u64 = 16;
const HEADER_LEN: usize = 32;
const FLAGS_INLINE: u8 = 0x2;
const MAX_VARINT_LEN: usize = 10;
/// Real versions are under 100 bytes ("devel go1.27-<hash> <date> X:<list>"). The cap keeps a
/// stray match from asking for megabytes.
const MAX_VERSION_LEN: usize = 1024;
/// Module info grows with dependencies (about 100 bytes each); the largest real binaries stay
/// far below this. A bound for hostile input, not a format limit.
const MAX_MODINFO_LEN: usize = 16 << 20;
/// The first read at a candidate: enough for nearly every blob in one go.
const FIRST_WINDOW: usize = 64 << 10;
/// Scan step; a multiple of ALIGN so that an aligned magic never straddles two chunks.
const CHUNK: usize = 1 << 20;

/// Random access to the bytes being searched: a file, or a slice in tests.
trait At {
    /// Up to `len` bytes from `offset`; fewer only at the end.
    fn at(&mut self, offset: u64, len: usize) -> io::Result<Cow<'_, [u8]>>;
}

struct BytesAt<'a>(&'a [u8]);

impl At for BytesAt<'_> {
    fn at(&mut self, offset: u64, len: usize) -> io::Result<Cow<'_, [u8]>> {
        let start = usize::try_from(offset).map_or(self.0.len(), |o| o.min(self.0.len()));
        let end = start.saturating_add(len).min(self.0.len());
        Ok(Cow::Borrowed(self.0.get(start..end).unwrap_or_default()))
    }
}

struct FileAt(std::fs::File);

impl At for FileAt {
    fn at(&mut self, offset: u64, len: usize) -> io::Result<Cow<'_, [u8]>> {
        self.0.seek(SeekFrom::Start(offset))?;
        let mut buf = Vec::with_capacity(len.min(CHUNK));
        // `take` bounds the allocation by what the file really holds, whatever `len` asks.
        (&mut self.0).take(len as u64).read_to_end(&mut buf)?;
        Ok(Cow::Owned(buf))
    }
}

fn find(src: &mut impl At) -> io::Result<Option<GoBuild>> {
    // An ELF file names the blob's section, and Go's own reader uses it. A blind scan would
    // take the first match, and that can be another Go binary embedded in .rodata
    // (go:embed), which the linker places before .go.buildinfo.
    if let Some(offset) = elf_section(src, b".go.buildinfo")? {
        if src.at(offset, MAGIC.len())?.as_ref() != MAGIC {
            return Ok(None);
        }
        return decode_at(src, offset);
    }
    scan(src)
}

/// The first 16-byte aligned magic that starts a well-formed blob. Go searches only the data
/// segment and gives up on a bad first match; here the whole file is searched, so a string
/// constant equal to the magic (any binary that imports debug/buildinfo has one) may come
/// first, and is skipped.
fn scan(src: &mut impl At) -> io::Result<Option<GoBuild>> {
    let finder = memchr::memmem::Finder::new(MAGIC);
    let mut offset = 0u64;
    loop {
        let chunk = src.at(offset, CHUNK)?.into_owned();
        for i in finder.find_iter(&chunk) {
            let at = offset + i as u64;
            if at.is_multiple_of(ALIGN) {
                if let Some(build) = decode_at(src, at)? {
                    return Ok(Some(build));
                }
            }
        }
        if chunk.len() < CHUNK {
            return Ok(None);
        }
        offset += CHUNK as u64;
    }
}

/// Decode the blob at `at`, reading more while the blob says it is longer than what was read.
fn decode_at(src: &mut impl At, at: u64) -> io::Result<Option<GoBuild>> {
    let mut want = FIRST_WINDOW;
    loop {
        let blob = src.at(at, want)?;
        match decode(&blob) {
            Ok(build) => return Ok(Some(build)),
            // Each round asks for strictly more, and decode never asks past its caps: this
            // ends.
            Err(Miss::Short(need)) if blob.len() == want && need > want => want = need,
            Err(_) => return Ok(None),
        }
    }
}

/// Why a blob did not decode.
#[derive(Debug, PartialEq)]
enum Miss {
    /// Not build info (or the pre-1.18 format).
    Bad,
    /// Well-formed so far; this many bytes from the magic on are needed.
    Short(usize),
}

/// A blob, from its magic on.
fn decode(blob: &[u8]) -> Result<GoBuild, Miss> {
    let Some(header) = blob.get(..HEADER_LEN) else {
        return Err(Miss::Short(HEADER_LEN));
    };
    let (ptr_size, flags) = match header.get(MAGIC.len()..MAGIC.len() + 2) {
        Some(&[p, f]) => (p, f),
        _ => return Err(Miss::Bad),
    };
    // The same checks Go makes, plus unknown flag bits: they weed out a stray copy of the
    // magic, whose next bytes are text.
    if (ptr_size != 4 && ptr_size != 8) || flags & !0x3 != 0 || flags & FLAGS_INLINE == 0 {
        return Err(Miss::Bad);
    }
    // The version is checked before the module info is read: a stray match must not get to
    // ask for megabytes.
    let (version, next) = string_at(blob, HEADER_LEN, MAX_VERSION_LEN)?;
    let version = std::str::from_utf8(version).map_err(|_| Miss::Bad)?;
    if version.is_empty() || version.chars().any(char::is_control) {
        return Err(Miss::Bad);
    }
    let (modinfo, _) = string_at(blob, next, MAX_MODINFO_LEN)?;
    Ok(build(version, strip_sentinels(modinfo)))
}

/// A uvarint-length-prefixed string at `at`, and where the next one starts.
fn string_at(blob: &[u8], at: usize, max: usize) -> Result<(&[u8], usize), Miss> {
    let (len, start) = uvarint(blob, at)?;
    let len = usize::try_from(len).map_err(|_| Miss::Bad)?;
    if len > max {
        return Err(Miss::Bad);
    }
    let end = start.checked_add(len).ok_or(Miss::Bad)?;
    blob.get(start..end)
        .map(|s| (s, end))
        .ok_or(Miss::Short(end))
}

/// Go's `binary.Uvarint`: 7 bits a byte, low group first, at most 10 bytes, no overflow.
fn uvarint(blob: &[u8], at: usize) -> Result<(u64, usize), Miss> {
    let mut value = 0u64;
    for i in 0..MAX_VARINT_LEN {
        let pos = at.checked_add(i).ok_or(Miss::Bad)?;
        let Some(&b) = blob.get(pos) else {
            return Err(Miss::Short(at.saturating_add(MAX_VARINT_LEN)));
        };
        if b < 0x80 {
            if i == MAX_VARINT_LEN - 1 && b > 1 {
                return Err(Miss::Bad);
            }
            return Ok((value | (u64::from(b) << (7 * i)), pos + 1));
        }
        value |= u64::from(b & 0x7f) << (7 * i);
    }
    Err(Miss::Bad)
}

/// The module info without the sentinels cmd/go frames it with, by Go's own test: at least
/// 33 bytes, a newline just before the closing sentinel. Otherwise there is none (a binary
/// built outside module mode).
fn strip_sentinels(modinfo: &[u8]) -> &[u8] {
    let n = modinfo.len();
    if n >= 33 && modinfo.get(n - 17) == Some(&b'\n') {
        modinfo.get(16..n - 16).unwrap_or_default()
    } else {
        &[]
    }
}

fn build(version: &str, modinfo: &[u8]) -> GoBuild {
    let (version, from_version) = split_experiments(version);
    let mut main_path = None;
    let mut setting = None;
    for line in modinfo.split(|&b| b == b'\n') {
        if let Some(path) = line.strip_prefix(b"path\t") {
            main_path = Some(String::from_utf8_lossy(path).into_owned());
        } else if let Some(value) = line.strip_prefix(b"build\tGOEXPERIMENT=") {
            setting = Some(unquote(&String::from_utf8_lossy(value)));
        }
    }
    let nonempty = |s: &String| !s.is_empty();
    GoBuild {
        version: version.to_string(),
        experiment: setting.filter(nonempty).or(from_version.filter(nonempty)),
        main_path,
    }
}

/// "go1.27.3-X:nogreenteagc" -> ("go1.27.3", "nogreenteagc"). The linker joins with " X:"
/// up to Go 1.25 and, from 1.26, with "-X:" unless the version already has a hyphen.
fn split_experiments(version: &str) -> (&str, Option<String>) {
    match version.find(" X:").or_else(|| version.find("-X:")) {
        Some(i) => (
            version.get(..i).unwrap_or(version),
            version.get(i + 3..).map(str::to_string),
        ),
        None => (version, None),
    }
}

/// cmd/go quotes a value only when it holds spaces, tabs or quotes, which no valid
/// GOEXPERIMENT does; the quotes are taken off, escapes left alone.
fn unquote(value: &str) -> String {
    for q in ['"', '`'] {
        if let Some(inner) = value.strip_prefix(q).and_then(|v| v.strip_suffix(q)) {
            return inner.to_string();
        }
    }
    value.to_string()
}

/// The decimal number at the start of `s` and what follows it.
fn leading_number(s: &str) -> Option<(u32, &str)> {
    let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (digits, rest) = s.split_at_checked(end)?;
    Some((digits.parse().ok()?, rest))
}

/// File offset of the ELF section `name`; None when the file is not ELF, has no such
/// section, or has headers that make no sense (the caller then scans).
fn elf_section(src: &mut impl At, name: &[u8]) -> io::Result<Option<u64>> {
    let ident = src.at(0, 64)?.into_owned();
    if ident.get(..4) != Some(b"\x7fELF") {
        return Ok(None);
    }
    let Some(elf) = Elf::new(&ident) else {
        return Ok(None);
    };
    let (Some(shoff), Some(entsize), Some(count), Some(strndx)) = (
        elf.word(&ident, elf.pick(0x28, 0x20)),
        elf.uint(&ident, elf.pick(0x3a, 0x2e), 2),
        elf.uint(&ident, elf.pick(0x3c, 0x30), 2),
        elf.uint(&ident, elf.pick(0x3e, 0x32), 2),
    ) else {
        return Ok(None);
    };
    // All three are 16-bit fields. Odd entry sizes, and the extended numbering of object
    // files with 65280+ sections (count 0), are left to the scan.
    let field = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
    let (entsize, count, strndx) = (field(entsize), field(count), field(strndx));
    if entsize < elf.pick(64, 40) || entsize > 256 || count == 0 || strndx >= count {
        return Ok(None);
    }
    let table = src.at(shoff, entsize * count)?.into_owned();
    let section = |i: usize| {
        let base = i * entsize;
        Some((
            elf.uint(&table, base, 4)?,                     // sh_name
            elf.word(&table, base + elf.pick(0x18, 0x10))?, // sh_offset
            elf.word(&table, base + elf.pick(0x20, 0x14))?, // sh_size
        ))
    };
    let Some((_, names_at, names_len)) = section(strndx) else {
        return Ok(None);
    };
    // Section names are short: a string table this large is not a Go linker's.
    let names_len = usize::try_from(names_len).unwrap_or(usize::MAX);
    if names_len > 1 << 20 {
        return Ok(None);
    }
    let names = src.at(names_at, names_len)?.into_owned();
    for i in 0..count {
        let Some((name_at, offset, _)) = section(i) else {
            return Ok(None);
        };
        let this = usize::try_from(name_at)
            .ok()
            .and_then(|n| names.get(n..))
            .and_then(|s| s.split(|&b| b == 0).next());
        if this == Some(name) {
            return Ok(Some(offset));
        }
    }
    Ok(None)
}

/// Field access for an ELF file of either class and byte order.
struct Elf {
    wide: bool,
    big: bool,
}

impl Elf {
    fn new(ident: &[u8]) -> Option<Elf> {
        let wide = match ident.get(4)? {
            1 => false,
            2 => true,
            _ => return None,
        };
        let big = match ident.get(5)? {
            1 => false,
            2 => true,
            _ => return None,
        };
        Some(Elf { wide, big })
    }

    /// The offset of a field: its ELF64 place, or its ELF32 one.
    fn pick(&self, wide: usize, narrow: usize) -> usize {
        if self.wide {
            wide
        } else {
            narrow
        }
    }

    /// An address-sized field (8 bytes in ELF64, 4 in ELF32).
    fn word(&self, bytes: &[u8], at: usize) -> Option<u64> {
        self.uint(bytes, at, if self.wide { 8 } else { 4 })
    }

    fn uint(&self, bytes: &[u8], at: usize, width: usize) -> Option<u64> {
        let field = bytes.get(at..at.checked_add(width)?)?;
        let fold = |v: u64, &b: &u8| (v << 8) | u64::from(b);
        Some(if self.big {
            field.iter().fold(0, fold)
        } else {
            field.iter().rev().fold(0, fold)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::path::PathBuf;
    use std::process::Command;

    /// cmd/go's module info sentinels (modload.infoStart / infoEnd).
    const INFO_START: &[u8] = b"0w\xaf\x0c\x92t\x08\x02A\xe1\xc1\x07\xe6\xd6\x18\xe6";
    const INFO_END: &[u8] = b"\xf92C1\x86\x18 r\x00\x82B\x10A\x16\xd8\xf2";

    fn push_uvarint(out: &mut Vec<u8>, mut n: u64) {
        while n >= 0x80 {
            out.push((n & 0x7f) as u8 | 0x80);
            n >>= 7;
        }
        out.push(u8::try_from(n).unwrap());
    }

    fn push_string(out: &mut Vec<u8>, s: &[u8]) {
        push_uvarint(out, s.len() as u64);
        out.extend_from_slice(s);
    }

    /// A blob as cmd/link writes it (64-bit little-endian, inline strings), padded to 16.
    fn blob(version: &str, modinfo: &str) -> Vec<u8> {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&[8, FLAGS_INLINE]);
        b.resize(HEADER_LEN, 0);
        push_string(&mut b, version.as_bytes());
        if modinfo.is_empty() {
            push_string(&mut b, b"");
        } else {
            push_string(&mut b, &[INFO_START, modinfo.as_bytes(), INFO_END].concat());
        }
        while !b.len().is_multiple_of(16) {
            b.push(0);
        }
        b
    }

    fn modinfo(path: &str, experiment: Option<&str>) -> String {
        let mut m = format!("path\t{path}\nmod\t{path}\t(devel)\t\nbuild\t-compiler=gc\n");
        if let Some(e) = experiment {
            m.push_str(&format!("build\tGOEXPERIMENT={e}\n"));
        }
        m.push_str("build\tGOOS=linux\n");
        m
    }

    /// `blob` at `at` in `len` bytes of filler.
    fn placed(blob: &[u8], at: usize, len: usize) -> Vec<u8> {
        let mut buf: Vec<u8> = (0..len.max(at + blob.len()))
            .map(|i| u8::try_from(i * 7 % 251).unwrap())
            .collect();
        buf[at..at + blob.len()].copy_from_slice(blob);
        buf
    }

    fn build(version: &str, experiment: Option<&str>) -> GoBuild {
        GoBuild {
            version: version.to_string(),
            experiment: experiment.map(str::to_string),
            main_path: None,
        }
    }

    #[test]
    fn reads_version_experiment_and_main_path() {
        let b = blob(
            "go1.27.3-X:nogreenteagc",
            &modinfo("gcwork", Some("nogreenteagc")),
        );
        let got = parse(&placed(&b, 4096, 8192)).unwrap();
        assert_eq!(
            got,
            GoBuild {
                version: "go1.27.3".into(),
                experiment: Some("nogreenteagc".into()),
                main_path: Some("gcwork".into()),
            }
        );
        assert_eq!(got.label(), "go1.27.3 GOEXPERIMENT=nogreenteagc");
        assert_eq!(got.green_tea(), Some(false));
    }

    #[test]
    fn experiment_comes_from_the_version_when_the_setting_is_absent() {
        for (version, want_version, want_exp) in [
            ("go1.27.3-X:nogreenteagc", "go1.27.3", Some("nogreenteagc")),
            ("go1.25.5 X:greenteagc", "go1.25.5", Some("greenteagc")),
            (
                "go1.27.3-corp X:nogreenteagc",
                "go1.27.3-corp",
                Some("nogreenteagc"),
            ),
            ("go1.27.3-corp", "go1.27.3-corp", None),
            ("go1.24.11", "go1.24.11", None),
        ] {
            let got = parse(&blob(version, &modinfo("m", None))).unwrap();
            assert_eq!(got.version, want_version, "{version}");
            assert_eq!(got.experiment.as_deref(), want_exp, "{version}");
        }
        // The build setting, when present, is what is reported (it is what the user typed).
        let got = parse(&blob(
            "go1.27.3-X:nogreenteagc",
            &modinfo("m", Some("nogreenteagc,nojsonv2")),
        ))
        .unwrap();
        assert_eq!(got.experiment.as_deref(), Some("nogreenteagc,nojsonv2"));
        // Quoted values (cmd/go quotes values with spaces or quotes) lose their quotes.
        let got = parse(&blob("go1.26.0", &modinfo("m", Some("\"nogreenteagc\"")))).unwrap();
        assert_eq!(got.experiment.as_deref(), Some("nogreenteagc"));
        // An empty setting is no setting.
        let got = parse(&blob("go1.26.0", &modinfo("m", Some("")))).unwrap();
        assert_eq!(got.experiment, None);
    }

    #[test]
    fn no_module_info_still_gives_the_version() {
        let got = parse(&blob("go1.22.10", "")).unwrap();
        assert_eq!(got, build("go1.22.10", None));
        // Too short to hold both sentinels, or not ending in a newline: no module info, as Go.
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&[8, FLAGS_INLINE]);
        b.resize(HEADER_LEN, 0);
        push_string(&mut b, b"go1.23.9");
        push_string(&mut b, &[INFO_START, b"path\tx", INFO_END].concat());
        assert_eq!(parse(&b).unwrap(), build("go1.23.9", None));
    }

    #[test]
    fn minor_parses_releases_only() {
        for (version, want) in [
            ("go1.27.3", Some((1, 27))),
            ("go1.21rc2", Some((1, 21))),
            ("go1.26.0-corp", Some((1, 26))),
            ("go1.9", Some((1, 9))),
            ("go1", None),
            ("go1.", None),
            ("go.27", None),
            ("devel go1.27-abcdef12 Tue Nov 4 10:00:00 2025 +0000", None),
            ("go99999999999.1", None),
            ("", None),
        ] {
            assert_eq!(build(version, None).minor(), want, "{version}");
        }
    }

    #[test]
    fn green_tea_follows_version_and_experiment() {
        for (version, exp, want) in [
            ("go1.27.3", None, Some(true)),
            ("go1.26.0", None, Some(true)),
            ("go1.26rc1", None, Some(true)),
            ("go1.27.3", Some("nogreenteagc"), Some(false)),
            ("go1.26.6", Some("goroutineleakprofile"), Some(true)),
            ("go1.27.3", Some("nojsonv2,nogreenteagc"), Some(false)),
            ("go1.27.3", Some("nogreenteagc,greenteagc"), Some(true)),
            ("go1.27.3", Some("none"), Some(false)),
            ("go1.27.3", Some("none,greenteagc"), Some(true)),
            ("go1.25.5", None, Some(false)),
            ("go1.25.5", Some("greenteagc"), Some(true)),
            ("go1.25.5", Some("nogreenteagc"), Some(false)),
            ("go1.24.11", Some("greenteagc"), Some(false)),
            ("go1.19.8", None, Some(false)),
            ("devel go1.27-abcdef12", None, None),
            ("go2.0", None, None),
        ] {
            assert_eq!(build(version, exp).green_tea(), want, "{version} {exp:?}");
        }
    }

    #[test]
    fn label_names_the_experiment_only_when_there_is_one() {
        assert_eq!(
            build("go1.25.5", Some("greenteagc")).label(),
            "go1.25.5 GOEXPERIMENT=greenteagc"
        );
        assert_eq!(build("go1.24.11", None).label(), "go1.24.11");
    }

    #[test]
    fn misaligned_and_stray_magic_are_skipped() {
        let real = blob("go1.27.3", &modinfo("real", None));
        let elsewhere = blob("go1.20.1", &modinfo("misaligned", None));
        let mut buf = placed(&real, 512, 1024);
        // A whole valid blob, but at an offset that is not a multiple of 16.
        buf[40..40 + elsewhere.len()].copy_from_slice(&elsewhere);
        // A string constant equal to the magic, aligned, followed by text (what a binary that
        // imports debug/buildinfo holds in .rodata).
        buf[256..256 + 32].copy_from_slice(b"\xff Go buildinf:not a Go executabl");
        // Aligned magic with a sane header but a version that is not text.
        let mut bad = MAGIC.to_vec();
        bad.extend_from_slice(&[8, FLAGS_INLINE]);
        bad.resize(HEADER_LEN, 0);
        push_string(&mut bad, b"go1\x01");
        buf[320..320 + bad.len()].copy_from_slice(&bad);
        assert_eq!(parse(&buf).unwrap().main_path.as_deref(), Some("real"));
    }

    #[test]
    fn pre_go_1_18_pointer_format_is_not_read() {
        let mut b = MAGIC.to_vec();
        b.extend_from_slice(&[8, 0]);
        b.extend_from_slice(&0x4c0000u64.to_le_bytes());
        b.extend_from_slice(&0x4c0010u64.to_le_bytes());
        assert_eq!(parse(&placed(&b, 64, 256)), None);
    }

    #[test]
    fn every_truncation_is_none_and_nothing_panics() {
        let b = blob(
            "go1.27.3-X:nogreenteagc",
            &modinfo("example.com/x", Some("nogreenteagc")),
        );
        // The blob ends where its module info ends; the rest is padding.
        let mut end = HEADER_LEN + 1 + "go1.27.3-X:nogreenteagc".len();
        let info = modinfo("example.com/x", Some("nogreenteagc")).len() + 32;
        end += if info >= 128 { 2 } else { 1 } + info;
        let buf = placed(&b, 32, 32 + b.len());
        for n in 0..=buf.len() {
            let got = parse(&buf[..n]);
            assert_eq!(got.is_some(), n >= 32 + end, "truncated at {n}");
        }
    }

    #[test]
    fn hostile_lengths_are_rejected() {
        let header = || {
            let mut b = MAGIC.to_vec();
            b.extend_from_slice(&[8, FLAGS_INLINE]);
            b.resize(HEADER_LEN, 0);
            b
        };
        let cases: Vec<Vec<u8>> = vec![
            // Ten continuation bytes: a varint that never ends.
            [header(), vec![0xff; 12]].concat(),
            // The tenth byte overflows 64 bits.
            [header(), vec![0xff; 9], vec![0x02], b"go".to_vec()].concat(),
            // u64::MAX bytes of version.
            [header(), vec![0xff; 9], vec![0x01], b"go".to_vec()].concat(),
            // A version over the cap, and one running past the end.
            [header(), vec![0x80, 0x10], vec![b'g'; 3000]].concat(),
            [header(), vec![0x40], b"go1.27.3".to_vec()].concat(),
            // An empty version (Go: not a Go executable).
            [header(), vec![0, 0]].concat(),
            // Module info longer than the cap, and longer than the buffer.
            [
                header(),
                vec![8],
                b"go1.27.3".to_vec(),
                vec![0xff, 0xff, 0xff, 0x7f],
            ]
            .concat(),
            [header(), vec![8], b"go1.27.3".to_vec(), vec![0x90, 0x4e]].concat(),
            // Bad pointer size, unknown flag bits.
            [MAGIC, &[5, 2], &[0; 16], &[8], b"go1.27.3", &[0]].concat(),
            [MAGIC, &[8, 0x12], &[0; 16], &[8], b"go1.27.3", &[0]].concat(),
            // Invalid UTF-8 in the version.
            [header(), vec![2, 0xc3, 0x28, 0]].concat(),
        ];
        for (i, case) in cases.iter().enumerate() {
            assert_eq!(parse(case), None, "case {i}");
        }
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2048)) {
            let _ = parse(&bytes);
        }

        #[test]
        fn arbitrary_bytes_after_the_magic_never_panic(
            pad in 0usize..4,
            head in proptest::collection::vec(prop_oneof![Just(8u8), Just(2u8), Just(0x80u8), Just(0xffu8), any::<u8>()], 0..64),
            tail in proptest::collection::vec(any::<u8>(), 0..512),
        ) {
            let buf = [vec![0; pad * 16], MAGIC.to_vec(), head, tail].concat();
            let _ = parse(&buf);
        }

        #[test]
        fn arbitrary_elf_headers_never_panic(
            class in 0u8..4,
            data in 0u8..4,
            rest in proptest::collection::vec(any::<u8>(), 0..1024),
        ) {
            let buf = [b"\x7fELF".to_vec(), vec![class, data], rest].concat();
            let _ = parse(&buf);
        }
    }

    /// A minimal ELF file: `decoy` at 0x100 (an embedded binary's blob, in .rodata), `real`
    /// in a .go.buildinfo section at 0x400, and a section table with a name table.
    fn elf(wide: bool, big: bool, decoy: &[u8], real: &[u8]) -> Vec<u8> {
        let mut f = vec![0u8; 0x800];
        let put = |f: &mut Vec<u8>, at: usize, v: u64, width: usize| {
            let bytes = v.to_le_bytes();
            for i in 0..width {
                f[at + if big { width - 1 - i } else { i }] = bytes[i];
            }
        };
        f[..4].copy_from_slice(b"\x7fELF");
        f[4] = if wide { 2 } else { 1 };
        f[5] = if big { 2 } else { 1 };
        f[0x100..0x100 + decoy.len()].copy_from_slice(decoy);
        f[0x400..0x400 + real.len()].copy_from_slice(real);
        let names = b"\0.rodata\0.go.buildinfo\0.shstrtab\0";
        f[0x700..0x700 + names.len()].copy_from_slice(names);
        let (entsize, w) = if wide { (64, 8) } else { (40, 4) };
        let (shoff, entsize_at, count_at, strndx_at) = if wide {
            (0x28, 0x3a, 0x3c, 0x3e)
        } else {
            (0x20, 0x2e, 0x30, 0x32)
        };
        put(&mut f, shoff, 0x500, w);
        put(&mut f, entsize_at, entsize as u64, 2);
        put(&mut f, count_at, 4, 2);
        put(&mut f, strndx_at, 3, 2);
        let (off_at, size_at) = if wide { (0x18, 0x20) } else { (0x10, 0x14) };
        // Section 0 is the null section.
        for (i, (name, offset, size)) in [
            (1, 0x100, 0x100),
            (9, 0x400, real.len()),
            (23, 0x700, names.len()),
        ]
        .into_iter()
        .enumerate()
        {
            let base = 0x500 + (i + 1) * entsize;
            put(&mut f, base, name, 4);
            put(&mut f, base + off_at, offset, w);
            put(&mut f, base + size_at, size as u64, w);
        }
        f
    }

    #[test]
    fn elf_buildinfo_section_wins_over_an_earlier_embedded_binary() {
        let decoy = blob("go1.21.13", &modinfo("embedded", None));
        let real = blob("go1.27.3", &modinfo("outer", None));
        for (wide, big) in [(true, false), (false, false), (true, true), (false, true)] {
            let f = elf(wide, big, &decoy, &real);
            assert_eq!(
                parse(&f).unwrap().main_path.as_deref(),
                Some("outer"),
                "wide {wide} big {big}"
            );
        }
        // A .go.buildinfo section without build info is the answer too: no build info.
        let f = elf(true, false, &decoy, b"\0\0\0\0");
        assert_eq!(parse(&f), None);
        // Without a section table the whole file is scanned, and the first blob is taken.
        let mut f = elf(true, false, &decoy, &real);
        f[0x3c..0x3e].copy_from_slice(&[0, 0]);
        assert_eq!(parse(&f).unwrap().main_path.as_deref(), Some("embedded"));
    }

    /// A directory removed when the test ends.
    struct TempDir(PathBuf);

    impl TempDir {
        fn new(tag: &str) -> TempDir {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let dir = std::env::temp_dir().join(format!(
                "gcscope-gobuild-{tag}-{}-{nanos}",
                std::process::id()
            ));
            std::fs::create_dir_all(&dir).unwrap();
            TempDir(dir)
        }
    }

    impl Drop for TempDir {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn read_finds_a_blob_across_read_chunks_and_reports_io_errors() {
        let dir = TempDir::new("read");
        // Module info of a few KiB, starting 32 bytes before a chunk boundary.
        let mut info = modinfo("example.com/big", Some("nogreenteagc"));
        for i in 0..100 {
            info.push_str(&format!(
                "dep\texample.com/dep{i}\tv1.0.{i}\th1:abcdefghijklmnopqrstuvwxyz=\n"
            ));
        }
        let b = blob("go1.27.3-X:nogreenteagc", &info);
        for at in [CHUNK - 32, CHUNK, 3 * CHUNK + 4096] {
            let path = dir.0.join(format!("bin-{at}"));
            std::fs::write(&path, placed(&b, at, at + 100_000)).unwrap();
            let got = read(&path).unwrap().unwrap();
            assert_eq!(got.main_path.as_deref(), Some("example.com/big"));
            assert_eq!(got.green_tea(), Some(false));
        }
        let text = dir.0.join("gc.log");
        std::fs::write(&text, b"gc 1 @0.001s 0%: 0.1+1+0.1 ms clock\n").unwrap();
        assert_eq!(read(&text).unwrap(), None);
        assert_eq!(read(&dir.0).unwrap(), None);
        let missing = dir.0.join("no-such-binary");
        let err = read(&missing).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
        assert!(err.to_string().contains("no-such-binary"), "{err}");
    }

    /// Runs `go` with a clean build environment: no GOFLAGS, GOEXPERIMENT or go.env file of
    /// the user's, no toolchain download, no cgo (no C compiler needed).
    fn go(go: &Path, dir: &Path, args: &[&str], experiment: Option<&str>) -> std::process::Output {
        let mut cmd = Command::new(go);
        cmd.args(args)
            .current_dir(dir)
            .env("GOTOOLCHAIN", "local")
            .env("GOENV", "off")
            .env("GOWORK", "off")
            .env("GOFLAGS", "-buildvcs=false")
            .env("CGO_ENABLED", "0")
            .env_remove("GOEXPERIMENT");
        if let Some(e) = experiment {
            cmd.env("GOEXPERIMENT", e);
        }
        let out = cmd.output().unwrap();
        assert!(
            out.status.success(),
            "go {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out
    }

    /// `go version -m` agrees with us on the version, path and GOEXPERIMENT setting.
    fn agrees_with_go_version_m(gotool: &Path, dir: &Path, bin: &Path, got: &GoBuild) {
        let out = go(gotool, dir, &["version", "-m", bin.to_str().unwrap()], None);
        let text = String::from_utf8_lossy(&out.stdout);
        let first = text.lines().next().unwrap();
        let raw = first.rsplit_once(": ").unwrap().1;
        assert!(raw.starts_with(&got.version), "{first} vs {got:?}");
        let field = |key: &str| {
            text.lines()
                .find_map(|l| l.trim_start().strip_prefix(key))
                .map(str::to_string)
        };
        assert_eq!(field("path\t"), got.main_path, "{text}");
        if let Some(setting) = field("build\tGOEXPERIMENT=") {
            assert_eq!(Some(setting), got.experiment, "{text}");
        }
    }

    /// Builds a tiny program with the Go toolchain on PATH (or $GCSCOPE_GO), by default and
    /// with the other Green Tea setting, and reads what the linker wrote.
    #[test]
    #[cfg_attr(
        not(real_go),
        ignore = "no Go toolchain when this was built: set GCSCOPE_GO or put go on PATH"
    )]
    fn real_go_binaries() {
        let gotool =
            std::env::var_os("GCSCOPE_GO").map_or_else(|| PathBuf::from("go"), PathBuf::from);
        let dir = TempDir::new("real");
        let out = Command::new(&gotool)
            .args(["env", "GOVERSION", "GOROOT"])
            .env("GOTOOLCHAIN", "local")
            .env("GOENV", "off")
            .output()
            .unwrap();
        assert!(out.status.success(), "{gotool:?} does not run: {out:?}");
        let env = String::from_utf8_lossy(&out.stdout).into_owned();
        let mut lines = env.lines();
        let (goversion, goroot) = (lines.next().unwrap(), lines.next().unwrap());
        let (goversion, _) = split_experiments(goversion);
        eprintln!("using {} ({goversion})", gotool.display());
        let minor = build(goversion, None).minor().unwrap().1;

        std::fs::write(
            dir.0.join("go.mod"),
            "module example.com/gcscopeprobe\n\ngo 1.18\n",
        )
        .unwrap();
        std::fs::write(dir.0.join("main.go"), "package main\n\nfunc main() {}\n").unwrap();

        let bin = dir.0.join("default");
        go(
            &gotool,
            &dir.0,
            &["build", "-o", bin.to_str().unwrap(), "."],
            None,
        );
        let got = read(&bin).unwrap().unwrap();
        assert_eq!(got.version, goversion);
        assert_eq!(got.main_path.as_deref(), Some("example.com/gcscopeprobe"));
        assert_eq!(got.experiment, None);
        assert_eq!(got.green_tea(), Some(minor >= 26));
        agrees_with_go_version_m(&gotool, &dir.0, &bin, &got);

        // The other setting, where the toolchain has one.
        let flip = match minor {
            26.. => Some(("nogreenteagc", false)),
            25 => Some(("greenteagc", true)),
            _ => None,
        };
        if let Some((experiment, on)) = flip {
            let bin = dir.0.join(experiment);
            go(
                &gotool,
                &dir.0,
                &["build", "-o", bin.to_str().unwrap(), "."],
                Some(experiment),
            );
            let got = read(&bin).unwrap().unwrap();
            assert_eq!(got.version, goversion);
            assert_eq!(got.experiment.as_deref(), Some(experiment));
            assert_eq!(got.green_tea(), Some(on));
            assert_eq!(
                got.label(),
                format!("{goversion} GOEXPERIMENT={experiment}")
            );
            agrees_with_go_version_m(&gotool, &dir.0, &bin, &got);
        } else {
            eprintln!("{goversion} predates the greenteagc experiment: one build only");
        }

        // The go command itself imports debug/buildinfo, so it holds the magic twice.
        let cmd_go =
            Path::new(goroot)
                .join("bin")
                .join(if cfg!(windows) { "go.exe" } else { "go" });
        let got = read(&cmd_go).unwrap().unwrap();
        assert_eq!(got.main_path.as_deref(), Some("cmd/go"));
        agrees_with_go_version_m(&gotool, &dir.0, &cmd_go, &got);
    }
}
