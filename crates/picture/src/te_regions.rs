//! `rangefinder te --svg`: for each stage computed at a loop, its tensor
//! at a chosen iteration of the loops around it, each element coloured by
//! what the lowered program did with it in that iteration (seed 000's
//! regions): computed and read (needed), computed and never read (the
//! over-computation a bound costs), read but not computed (never, in a
//! correct program), untouched.
//!
//! The sets come from [`te::iteration_regions`]; this module only draws
//! them, with the region the report gives (`[min, extent)`, as TVM prints
//! ranges) evaluated at the iteration, and the stage's runs and needed
//! elements over the whole run when the report has a run.

use crate::grid::{tensor_panel, Cell};
use crate::palette::Role;
use crate::panel::{render, Column, Legend, LegendEntry, Panel, Row, Text};
use crate::svg::Drawing;
use std::collections::BTreeSet;
use te::{Placement, RegionQuery, RunLimits, RunReport, Schedule, TeError, Tensor};

/// The legend of every region picture.
fn legend() -> Legend {
    legend_for(false)
}

/// The legend, with padding when a physical buffer is drawn.
fn legend_for(physical: bool) -> Legend {
    let mut entries = vec![
        LegendEntry::role_as(Role::Needed, "computed and read"),
        LegendEntry::role_as(Role::Wasted, "computed, never read"),
        LegendEntry::role_as(Role::Missing, "read, not computed"),
        LegendEntry::role_as(Role::Plain, "not computed"),
    ];
    if physical {
        entries.push(LegendEntry::role_as(
            Role::Padding,
            "physical position of no element",
        ));
    }
    Legend::new(entries)
}

/// The region pictures of `run.report`'s schedule `schedule` (lowered
/// with `args`), one panel per stage and iteration, each with its title,
/// caption, tensor and legend.
///
/// The stages drawn are `stage` alone, or (with `None`) every stage
/// computed at a loop. The iteration is `at` (loop names and values, as
/// `rangefinder te --at` takes them; a loop left out is at its first
/// iteration); with `at` empty, the first and a middle iteration of each
/// stage's outermost attach loop ([`te::default_iterations`]). A name that
/// is no drawn stage's attach loop, or a value no iteration takes, is an
/// error listing the attach loops. The program is run within `limits`.
///
/// Anchors are `{stage}@{iteration}[i,j]`, with the iteration written
/// `name=value,...` (`root` for a stage computed once), e.g.
/// `B@ci.cj.fused.outer=1[0,3]`.
pub fn region_panels(
    schedule: &Schedule,
    args: &[Tensor],
    run: &RunReport,
    stage: Option<&str>,
    at: &[(String, i64)],
    limits: &RunLimits,
) -> Result<Vec<Box<dyn Panel>>, TeError> {
    let stages: Vec<&te::StageReport> = match stage {
        Some(name) => vec![run
            .report
            .stage(name)
            .filter(|st| !matches!(st.placement, Placement::Input | Placement::Inline))
            .ok_or_else(|| {
                TeError::new(te::ErrorKind::InvalidSchedule, format!(
                    "no stage with storage is called `{name}`: inputs and inlined stages have no regions"
                ))
            })?],
        None => run
            .report
            .stages
            .iter()
            .filter(|st| matches!(st.placement, Placement::At { .. }))
            .collect(),
    };
    if stages.is_empty() {
        if let Some((name, _)) = at.first() {
            return Err(TeError::new(
                te::ErrorKind::InvalidSchedule,
                format!(
                    "no attach loop is called `{name}`: no stage is computed at a loop, so there \
                     are no attach loops to choose an iteration of"
                ),
            ));
        }
        return Ok(vec![Box::new(note(
            "No stage is computed at a loop: every stage is computed at the root or inlined.",
        ))]);
    }
    // Every name given must be an attach loop of a drawn stage.
    let every = te::every_attach_loops(schedule)?;
    let loops_of: Vec<&[te::AttachLoop]> = stages
        .iter()
        .map(|st| {
            every
                .iter()
                .find(|(name, _)| name == &st.name)
                .map_or(&[][..], |(_, l)| l.as_slice())
        })
        .collect();
    for (name, _) in at {
        if !loops_of.iter().copied().flatten().any(|l| &l.name == name) {
            let listed: Vec<String> = stages
                .iter()
                .zip(&loops_of)
                .map(|(st, loops)| {
                    let l: Vec<String> = loops.iter().map(ToString::to_string).collect();
                    if l.is_empty() {
                        format!("{}: none (computed once)", st.name)
                    } else {
                        format!("{}: {}", st.name, l.join(", "))
                    }
                })
                .collect();
            return Err(TeError::new(
                te::ErrorKind::InvalidSchedule,
                format!(
                    "no attach loop is called `{name}`; the attach loops are {}",
                    listed.join("; ")
                ),
            ));
        }
    }
    let mut queries = Vec::new();
    for (st, loops) in stages.iter().zip(&loops_of) {
        let mine: Vec<(String, i64)> = at
            .iter()
            .filter(|(n, _)| loops.iter().any(|l| &l.name == n))
            .cloned()
            .collect();
        let iterations = if mine.is_empty() {
            te::default_iterations(schedule, loops)
        } else {
            vec![mine]
        };
        for it in iterations {
            queries.push(RegionQuery {
                stage: st.name.clone(),
                at: it,
            });
        }
    }
    let regions = te::iteration_regions(schedule, args, &queries, limits)?;
    let mut panels: Vec<Box<dyn Panel>> = Vec::new();
    for r in &regions {
        panels.push(Box::new(stage_panel(schedule, run, r)));
    }
    Ok(panels)
}

/// The pictures of [`region_panels`] for every stage computed at a loop,
/// each rendered on its own and named by its stage: what the HTML report
/// puts in each stage's section ([`crate::te_page`]'s `extra`). `at` is
/// checked as [`region_panels`] checks it; each stage takes the names that
/// are its own attach loops.
pub fn region_drawings(
    schedule: &Schedule,
    args: &[Tensor],
    run: &RunReport,
    at: &[(String, i64)],
    limits: &RunLimits,
) -> Result<Vec<(String, Drawing)>, TeError> {
    let every = te::every_attach_loops(schedule)?;
    let stages: Vec<(&str, &[te::AttachLoop])> = run
        .report
        .stages
        .iter()
        .filter(|st| matches!(st.placement, Placement::At { .. }))
        .map(|st| {
            let loops = every
                .iter()
                .find(|(name, _)| name == &st.name)
                .map_or(&[][..], |(_, l)| l.as_slice());
            (st.name.as_str(), loops)
        })
        .collect();
    if at.iter().any(|(n, _)| {
        !stages
            .iter()
            .any(|(_, loops)| loops.iter().any(|l| &l.name == n))
    }) {
        // The error names every stage's loops.
        region_panels(schedule, args, run, None, at, limits)?;
    }
    let mut out = Vec::new();
    for (stage, loops) in stages {
        let mine: Vec<(String, i64)> = at
            .iter()
            .filter(|(n, _)| loops.iter().any(|l| &l.name == n))
            .cloned()
            .collect();
        for p in region_panels(schedule, args, run, Some(stage), &mine, limits)? {
            out.push((stage.to_string(), render(p.as_ref())));
        }
    }
    Ok(out)
}

/// [`region_panels`] in one column, rendered: what `rangefinder te --svg`
/// writes.
///
/// ```
/// let a = te::placeholder([8], "A", tir::DataType::Float32).unwrap();
/// let b = te::compute_named([8], &["i"], |i| a.at([&i[0]]) + 1.0, "B").unwrap();
/// let c = te::compute_named([8], &["j"], |i| b.at([&i[0]]) * 2.0, "C").unwrap();
/// let mut s = te::create_schedule(&[c.clone()]);
/// let (jo, _) = s.split(&c, &c.op().axis()[0], 4).unwrap();
/// s.compute_at(&b, &c, &jo).unwrap();
/// let args = [a, c];
/// let run = te::run_report(&s, &args, &Default::default()).unwrap();
/// let at = [("j.outer".to_string(), 1)];
/// let d = picture::te_regions_svg(&s, &args, &run, &at, &Default::default()).unwrap();
/// assert!(d.svg.contains("B at j.outer = 1: computes 4, needs 4"));
/// assert!(d.anchor("B@j.outer=1[5]").is_some());
/// ```
pub fn te_regions_svg(
    schedule: &Schedule,
    args: &[Tensor],
    run: &RunReport,
    at: &[(String, i64)],
    limits: &RunLimits,
) -> Result<Drawing, TeError> {
    let mut column = Column::new(24.0);
    for p in region_panels(schedule, args, run, None, at, limits)? {
        column.push_boxed(p);
    }
    Ok(render(&column))
}

fn note(text: &str) -> Column {
    let mut c = Column::new(8.0);
    c.push(Text::body(text));
    c.push(legend());
    c
}

/// The anchor prefix of a stage at an iteration.
fn panel_id(r: &te::IterationRegions) -> String {
    let at = if r.at.is_empty() {
        "root".to_string()
    } else {
        let parts: Vec<String> = r.at.iter().map(|(n, v)| format!("{n}={v}")).collect();
        parts.join(",")
    };
    format!("{}@{at}", r.stage)
}

/// A range list as TVM prints regions: `[min, extent) x ...`.
fn region_text(ranges: impl Iterator<Item = (String, String)>) -> String {
    let parts: Vec<String> = ranges.map(|(m, e)| format!("[{m}, {e})")).collect();
    if parts.is_empty() {
        "scalar".to_string()
    } else {
        parts.join(" x ")
    }
}

/// The longest symbolic region printed in a caption; longer ones are cut
/// (the text report prints them whole).
const MAX_CAPTION: usize = 100;

/// One stage at one iteration: title, caption, tensor, legend.
fn stage_panel(schedule: &Schedule, run: &RunReport, r: &te::IterationRegions) -> Column {
    let wasted = r.wasted().count();
    let missing = r.missing().count();
    let mut title = format!(
        "{} at {}: computes {}, needs {}",
        r.stage,
        r.at_text(),
        r.computed.len(),
        r.needed.len()
    );
    if wasted > 0 {
        title.push_str(&format!(", wastes {wasted}"));
    }
    if missing > 0 {
        title.push_str(&format!(", MISSING {missing}"));
    }
    let mut caption = vec![format!(
        "realize {} at this iteration",
        region_text(
            r.realize
                .iter()
                .map(|(m, e)| (m.to_string(), e.to_string()))
        )
    )];
    if let Some(st) = run.report.stage(&r.stage) {
        let mut symbolic = region_text(
            st.region
                .iter()
                .map(|x| (x.min.to_string(), x.extent.to_string())),
        );
        if symbolic.chars().count() > MAX_CAPTION {
            symbolic = symbolic.chars().take(MAX_CAPTION).collect::<String>() + " …";
        }
        let place = match &st.placement {
            Placement::At { stage, axis } => format!("computed at {stage}.{axis}"),
            _ => "computed at the root".to_string(),
        };
        caption.push(format!("{place}; realize {symbolic}"));
    }
    if let Some(sc) = run.check.as_ref().and_then(|c| c.stage(&r.stage)) {
        caption.push(format!("whole run: runs {}, needed {}", sc.runs, sc.needed));
    }
    let axis_names: Vec<String> = schedule
        .stages()
        .iter()
        .find(|st| st.name() == r.stage)
        .map(|st| {
            st.op()
                .axis()
                .iter()
                .map(|a| a.name().to_string())
                .collect()
        })
        .unwrap_or_default();
    let shape: Vec<usize> = r.shape.iter().map(|&d| d.max(0) as usize).collect();
    let classify = |idx: &[usize]| -> Cell {
        let key: Vec<i64> = idx.iter().map(|&i| i as i64).collect();
        Cell::of(role(&r.computed, &r.needed, &key))
    };
    let dims: Vec<String> = r.shape.iter().map(ToString::to_string).collect();
    let name = format!("{} ({})", r.stage, dims.join(" x "));
    let logical = tensor_panel(&panel_id(r), &name, &shape, &axis_names, &classify);
    let mut c = Column::new(6.0);
    c.push(Text::title(&title));
    c.push(Text::body(&caption.join("\n")));
    match &r.physical {
        Some(p) => {
            // The physical buffer beside the logical tensor (seed 001).
            let mut row = Row::new(24.0);
            row.push_boxed(logical);
            row.push_boxed(physical_panel(r, p));
            c.push(row);
        }
        None => {
            c.push_boxed(logical);
        }
    }
    c.push(legend_for(r.physical.is_some()));
    c
}

/// The physical buffer of a tensor with a layout at one iteration: each
/// position labelled with the logical element it holds; positions that
/// hold none are padding. Anchors are `{stage}@{iteration}:physical[..]`.
fn physical_panel(r: &te::IterationRegions, p: &te::PhysicalRegions) -> Box<dyn Panel> {
    let shape: Vec<usize> = p.shape.iter().map(|&d| d.max(0) as usize).collect();
    let dims: Vec<String> = p.shape.iter().map(ToString::to_string).collect();
    let title = format!("{} physical ({})", r.stage, dims.join(" x "));
    let names: Vec<String> = (0..shape.len()).map(|k| format!("p{k}")).collect();
    let classify = |idx: &[usize]| -> Cell {
        let key: Vec<i64> = idx.iter().map(|&i| i as i64).collect();
        let role = role(&p.computed, &p.needed, &key);
        match p.logical.get(&key) {
            Some(x) => {
                let at: Vec<String> = x.iter().map(ToString::to_string).collect();
                Cell::labelled(role, at.join(","))
            }
            None if role == Role::Plain => Cell::of(Role::Padding),
            None => Cell::of(role),
        }
    };
    tensor_panel(
        &format!("{}:physical", panel_id(r)),
        &title,
        &shape,
        &names,
        &classify,
    )
}

/// What element `idx` was in the iteration.
fn role(computed: &BTreeSet<Vec<i64>>, needed: &BTreeSet<Vec<i64>>, idx: &Vec<i64>) -> Role {
    match (computed.contains(idx), needed.contains(idx)) {
        (true, true) => Role::Needed,
        (true, false) => Role::Wasted,
        (false, true) => Role::Missing,
        (false, false) => Role::Plain,
    }
}
