//! The report of a TE schedule as one page: the stage graph, the work
//! each stage did against what was needed (with a run), and per stage its
//! IterVar graph, its ranges, attach path, realize region and storage;
//! then the lowered program. `rangefinder te FILE --html OUT.html` writes
//! it, and Python's report shows it in Jupyter.

use te::{IterKind, Placement, RunReport, Schedule, StageReport};

use crate::html::Page;
use crate::iter_var_graph::iter_var_panel;
use crate::palette::{Color, Role};
use crate::panel::{render, Column, Legend, LegendEntry, Panel, Text};
use crate::stage_graph::{
    elements_text, placement_text, range_text, region_text, stage_graph_panel,
};
use crate::svg::{Drawing, Stroke, Svg, TextStyle};

/// The page of `report` (a report of `schedule`), titled `title`. `extra`
/// holds further pictures per stage, `(stage name, picture)`, drawn at the
/// end of that stage's section in the order given (the per-iteration
/// region pictures go there); pictures naming no stage of the schedule are
/// left out.
pub fn te_page(
    title: &str,
    schedule: &Schedule,
    report: &RunReport,
    extra: &[(String, Drawing)],
) -> Page {
    let r = &report.report;
    let mut page = Page::new(title);
    page.heading(1, title, None);
    page.paragraph(
        "Ranges are [min, extent), as TVM's Range: the first value and the number of values. \
         Regions are one range per axis of the tensor.",
    );
    page.heading(2, "Stage graph", Some("stage-graph"));
    page.picture(&render(&stage_graph_panel(schedule, r)).svg);
    if let Some(check) = &report.check {
        page.heading(2, "Work per stage", Some("work"));
        page.paragraph(&run_summary(report));
        page.picture(&work_picture(schedule, check).svg);
    }
    for st in &r.stages {
        stage_section(&mut page, schedule, report, st, extra);
    }
    page.heading(2, "Lowered program", Some("lowered"));
    page.preformatted(&r.program.to_string());
    page
}

/// One line on the run: its inputs and verdict.
fn run_summary(report: &RunReport) -> String {
    let Some(c) = &report.check else {
        return String::new();
    };
    let mut sizes: Vec<String> = report
        .sizes
        .iter()
        .map(|(v, n)| format!("{} = {n}", v.name()))
        .collect();
    sizes.sort();
    let with = if sizes.is_empty() {
        String::new()
    } else {
        format!(" with {}", sizes.join(", "))
    };
    let verdict = if !c.not_evaluable.is_empty() {
        "not run (a stage calls a function that cannot be evaluated)"
    } else if report.is_clean() {
        "ok"
    } else {
        "MISMATCH"
    };
    format!(
        "Run on random inputs (seed {}){with}: {} output elements compared, largest relative error {}, out-of-bounds accesses {}: {verdict}.",
        report.seed, c.compared, c.max_rel_error, c.out_of_bounds
    )
}

fn stage_section(
    page: &mut Page,
    schedule: &Schedule,
    report: &RunReport,
    st: &StageReport,
    extra: &[(String, Drawing)],
) {
    let r = &report.report;
    page.heading(
        2,
        &format!("Stage {}", st.name),
        Some(&format!("stage-{}", st.name)),
    );
    page.paragraph(&placement_sentence(&st.placement));
    if !st.iter_vars.is_empty() {
        if let Some(panel) = iter_var_panel(schedule, r, &st.name) {
            page.picture(&render(&panel).svg);
        }
        let rows: Vec<Vec<String>> = st
            .iter_vars
            .iter()
            .map(|iv| {
                vec![
                    iv.name.clone(),
                    range_text(&iv.min, &iv.extent),
                    match iv.kind {
                        IterKind::DataPar => "data".to_string(),
                        IterKind::Reduce => "reduction".to_string(),
                    },
                    if iv.leaf { "loop" } else { "" }.to_string(),
                ]
            })
            .collect();
        page.table(&["IterVar", "range [min, extent)", "kind", "leaf"], &rows);
    }
    let mut facts: Vec<Vec<String>> = Vec::new();
    if !st.attach_path.is_empty() {
        facts.push(vec![
            "attach path (innermost first)".into(),
            st.attach_path.join(", "),
        ]);
    }
    if !matches!(st.placement, Placement::Inline) {
        let what = if matches!(st.placement, Placement::Input) {
            "shape"
        } else {
            "realize"
        };
        facts.push(vec![what.into(), region_text(&st.region)]);
        if let Some(p) = &st.physical_shape {
            let dims: Vec<String> = p.iter().map(ToString::to_string).collect();
            facts.push(vec![
                "physical shape".into(),
                format!("[{}]", dims.join(", ")),
            ]);
        }
        facts.push(vec![
            "allocation (elements)".into(),
            elements_text(&st.allocation),
        ]);
    }
    if !st.widened.is_empty() {
        facts.push(vec![
            "widened to the whole axis".into(),
            st.widened.join(", "),
        ]);
    }
    if let Some(sc) = report.check.as_ref().and_then(|c| c.stage(&st.name)) {
        facts.push(vec!["runs".into(), sc.runs.to_string()]);
        facts.push(vec!["needed".into(), sc.needed.to_string()]);
        if let Some(l) = sc.largest_region {
            facts.push(vec!["largest region held".into(), l.to_string()]);
        }
    }
    if !facts.is_empty() {
        page.table(&["", &st.name], &facts);
    }
    for (_, d) in extra.iter().filter(|(s, _)| *s == st.name) {
        page.picture(&d.svg);
    }
}

fn placement_sentence(p: &Placement) -> String {
    match p {
        Placement::At { stage, axis } => {
            format!("Computed at loop {axis} of {stage} (compute_at {stage}.{axis}).")
        }
        Placement::Input => "An input of the program.".to_string(),
        other => {
            let mut s = placement_text(other);
            if let Some(first) = s.get_mut(..1) {
                first.make_ascii_uppercase();
            }
            s + "."
        }
    }
}

/// Bars of the work per computed stage: as long as its runs, blue for the
/// elements needed, orange for the runs beyond them (elements computed
/// more than once, or never read). Reductions count a run per update, so
/// their bars show runs only, in grey.
///
/// Anchors `work:STAGE:needed` and `work:STAGE:extra` at the middle of
/// each part (`work:STAGE:runs` for a reduction); inlined stages, which
/// never run, have neither.
pub fn work_picture(schedule: &Schedule, check: &te::CheckReport) -> Drawing {
    // A reduction runs once per update, so its runs exceed its elements
    // without any recomputation.
    let reductions: Vec<String> = schedule
        .stages()
        .iter()
        .filter(|s| !s.op().reduce_axis().is_empty())
        .map(|s| s.name().to_string())
        .collect();
    let mut col = Column::new(8.0);
    col.push(Text::title("Work per stage: runs against elements needed"));
    col.push(WorkBars::new(check, &reductions));
    col.push(Legend::new(vec![
        LegendEntry::role(Role::Needed),
        LegendEntry::role_as(
            Role::Wasted,
            "runs beyond needed (recomputed or never read)",
        ),
        LegendEntry::role_as(Role::Plain, "runs of a reduction (one per update)"),
    ]));
    render(&col)
}

/// The bars of [`work_picture`].
struct WorkBars {
    rows: Vec<(String, u64, u64, bool)>,
    label_width: f64,
}

const BAR_WIDTH: f64 = 480.0;
const BAR_HEIGHT: f64 = 16.0;
const BAR_GAP: f64 = 6.0;

impl WorkBars {
    fn new(check: &te::CheckReport, reductions: &[String]) -> WorkBars {
        let rows: Vec<(String, u64, u64, bool)> = check
            .stages
            .iter()
            .map(|s| {
                (
                    s.name.clone(),
                    s.runs,
                    s.needed,
                    reductions.contains(&s.name),
                )
            })
            .collect();
        let label_width = rows
            .iter()
            .map(|r| TextStyle::LABEL.width_of(&bar_label(r)))
            .fold(0.0, f64::max);
        WorkBars { rows, label_width }
    }
}

fn bar_label(r: &(String, u64, u64, bool)) -> String {
    format!("{}: runs {}, needed {}", r.0, r.1, r.2)
}

impl Panel for WorkBars {
    fn size(&self) -> (f64, f64) {
        let n = self.rows.len() as f64;
        (
            self.label_width + 8.0 + BAR_WIDTH,
            (n * (BAR_HEIGHT + BAR_GAP) - BAR_GAP).max(0.0),
        )
    }

    fn draw(&self, svg: &mut Svg, x: f64, y: f64) {
        let most = self
            .rows
            .iter()
            .map(|r| r.1.max(r.2))
            .max()
            .unwrap_or(0)
            .max(1) as f64;
        let scale = BAR_WIDTH / most;
        let left = x + self.label_width + 8.0;
        svg.begin_group("work");
        for (i, row) in self.rows.iter().enumerate() {
            let (name, runs, needed, reduction) = row;
            let top = y + i as f64 * (BAR_HEIGHT + BAR_GAP);
            svg.text(
                left - 8.0,
                top + BAR_HEIGHT - 4.0,
                &bar_label(row),
                TextStyle::LABEL.right(),
            );
            let outline = Some(Stroke::solid(Color::RULE, 1.0));
            if *reduction {
                let w = *runs as f64 * scale;
                svg.rect(
                    left,
                    top,
                    w,
                    BAR_HEIGHT,
                    Role::Plain.fill(),
                    outline,
                    Some(&bar_label(row)),
                );
                svg.anchor(
                    format!("work:{name}:runs"),
                    left + w / 2.0,
                    top + BAR_HEIGHT / 2.0,
                );
                continue;
            }
            let done = (*needed).min(*runs) as f64 * scale;
            let extra = runs.saturating_sub(*needed) as f64 * scale;
            if done > 0.0 {
                svg.rect(
                    left,
                    top,
                    done,
                    BAR_HEIGHT,
                    Role::Needed.fill(),
                    outline,
                    Some(&bar_label(row)),
                );
                svg.anchor(
                    format!("work:{name}:needed"),
                    left + done / 2.0,
                    top + BAR_HEIGHT / 2.0,
                );
            }
            if extra > 0.0 {
                svg.rect(
                    left + done,
                    top,
                    extra,
                    BAR_HEIGHT,
                    Role::Wasted.fill(),
                    outline,
                    Some(&format!(
                        "{name}: {} runs beyond the {needed} needed",
                        runs - needed.min(runs)
                    )),
                );
                svg.anchor(
                    format!("work:{name}:extra"),
                    left + done + extra / 2.0,
                    top + BAR_HEIGHT / 2.0,
                );
            }
        }
        svg.end_group();
    }
}

/// Every graph of a schedule in one picture: the stage graph, then per
/// stage its IterVar graph (for a stage with loops) followed by the
/// pictures of `extra` that name it, `(stage name, picture)`, in the order
/// given. Python's report shows it.
pub fn te_pictures(
    schedule: &Schedule,
    report: &te::Report,
    extra: &[(String, Drawing)],
) -> Drawing {
    let mut col = Column::new(24.0);
    col.push(stage_graph_panel(schedule, report));
    for st in &report.stages {
        if !st.iter_vars.is_empty() {
            if let Some(p) = iter_var_panel(schedule, report, &st.name) {
                col.push(p);
            }
        }
        for (_, d) in extra.iter().filter(|(s, _)| *s == st.name) {
            col.push(d.clone());
        }
    }
    render(&col)
}
