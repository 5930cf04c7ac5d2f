//! `rangefinder te FILE --html OUT.html`: the report as one page, checked
//! as text and, where a Chromium is installed, as a browser draws it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn example(name: &str) -> PathBuf {
    [
        env!("CARGO_MANIFEST_DIR"),
        "..",
        "..",
        "examples",
        "te",
        name,
    ]
    .iter()
    .collect()
}

fn rangefinder(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rangefinder"))
        .args(args)
        .output()
        .expect("runs rangefinder")
}

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("rangefinder-te-html-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// Writes the page of `example` with `--run` into `dir`; returns its path.
fn write_page(dir: &Path, file: &str) -> PathBuf {
    let out_path = dir.join("report.html");
    let path = example(file);
    let out = rangefinder(&[
        "te",
        path.to_str().unwrap(),
        "--run",
        "--html",
        out_path.to_str().unwrap(),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out_path
}

#[test]
fn html_is_written_beside_the_usual_report() {
    let dir = scratch("beside");
    let path = example("ex6_fuse_split.py");
    let page = dir.join("ex6.html");
    let plain = rangefinder(&["te", path.to_str().unwrap()]);
    let with = rangefinder(&[
        "te",
        path.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(with.status.code(), Some(0));
    // The text on stdout does not change.
    assert_eq!(plain.stdout, with.stdout);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    for part in [
        "id=\"stage-graph\"",
        "id=\"stage-B\"",
        "id=\"stage-C\"",
        "IterVar graph of C",
        "compute_at C.ci.cj.fused.outer",
        "split factor=4",
        "produce C {",
    ] {
        assert!(html.contains(part), "{part}");
    }
    // Without a run there are no runs to draw.
    assert!(!html.contains("id=\"work\""));
    // Self-contained: no scripts, no external files.
    assert!(!html.contains("<script") && !html.contains("src="));
}

#[test]
fn with_run_the_page_has_the_work_per_stage() {
    let dir = scratch("run");
    let html = std::fs::read_to_string(write_page(&dir, "t04_attach_path.py")).unwrap();
    assert!(html.contains("id=\"work\""));
    assert!(html.contains("C: runs 320, needed 80"), "{html}");
    assert!(html.contains("<td>needed</td><td>80</td>"));
}

#[test]
fn html_to_stdout_follows_the_report() {
    let path = example("t04_attach_path.py");
    let out = rangefinder(&["te", path.to_str().unwrap(), "--html", "-"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    let report = text.find("stage C:").unwrap();
    let page = text.find("<!DOCTYPE html>").unwrap();
    assert!(report < page);
}

#[test]
fn an_unwritable_html_path_is_a_diagnostic() {
    let path = example("t04_attach_path.py");
    let out = rangefinder(&[
        "te",
        path.to_str().unwrap(),
        "--html",
        "/nonexistent-directory/report.html",
    ]);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cannot write the HTML report"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

/// The Chromium to take screenshots with: `RANGEFINDER_CHROMIUM`, else the
/// first of the usual names on the path.
fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("RANGEFINDER_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .flat_map(|name| std::env::split_paths(&path).map(move |d| d.join(name)))
        .find(|p| p.is_file())
}

/// The RGB pixels of a PNG file, row by row, with its width and height.
fn decode_png(path: &Path) -> (Vec<[u8; 3]>, usize, usize) {
    let decoder = png::Decoder::new(std::fs::File::open(path).expect("the screenshot exists"));
    let mut reader = decoder.read_info().expect("a PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("one frame");
    let channels = info.color_type.samples();
    assert!(info.bit_depth == png::BitDepth::Eight && channels >= 3);
    let pixels = buf[..info.buffer_size()]
        .chunks(channels)
        .map(|p| [p[0], p[1], p[2]])
        .collect();
    (pixels, info.width as usize, info.height as usize)
}

/// Whether `a` and `b` differ by at most 3 per channel (a browser may
/// round colours when it composites).
fn near(a: [u8; 3], b: [u8; 3]) -> bool {
    a.iter().zip(b).all(|(x, y)| x.abs_diff(y) <= 3)
}

#[test]
fn a_browser_draws_the_report_with_leaves_green_and_needed_work_blue() {
    let Some(browser) = chromium() else {
        println!(
            "note: no chromium found (set RANGEFINDER_CHROMIUM); the browser test was skipped"
        );
        return;
    };
    let dir = scratch("browser");
    // Ex. 4: C is recomputed, so the work bars show blue and orange; C's
    // and D's loops are green.
    let page = write_page(&dir, "t04_attach_path.py");
    let shot = dir.join("shot.png");
    let out = Command::new(&browser)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            &format!("--screenshot={}", shot.display()),
            "--window-size=1200,1600",
        ])
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("runs the browser");
    if !shot.is_file() {
        panic!(
            "{} wrote no screenshot: {}",
            browser.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let (pixels, width, height) = decode_png(&shot);
    assert_eq!((width, height), (1200, 1600));
    let count = |c: [u8; 3], rows: std::ops::Range<usize>| {
        rows.flat_map(|y| pixels[y * width..(y + 1) * width].iter())
            .filter(|p| near(**p, c))
            .count()
    };
    let (blue, green, orange) = ([0x00, 0x72, 0xb2], [0x00, 0x9e, 0x73], [0xe6, 0x9f, 0x00]);
    // The stage graph comes first: the output stage D is a blue box in
    // the top third; the work bars below it are blue and orange.
    assert!(count(blue, 0..height / 3) > 2000, "no blue output stage");
    assert!(count(orange, 0..height) > 1000, "no orange recomputation");
    // Leaf variables are green boxes (the IterVar graphs of C and D).
    assert!(count(green, 0..height) > 2000, "no green leaves");
}

#[test]
fn a_script_without_a_schedule_writes_no_page_and_says_so() {
    let dir = scratch("noschedule");
    let script = dir.join("tensors.py");
    std::fs::write(
        &script,
        "import tvm\nA = tvm.placeholder((4,), name='A')\nB = tvm.compute((4,), lambda i: A[i] + 1, name='B')\n",
    )
    .unwrap();
    let page = dir.join("out.html");
    let out = rangefinder(&[
        "te",
        script.to_str().unwrap(),
        "--html",
        page.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert!(!page.exists());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no HTML report was written"), "{err}");
}
