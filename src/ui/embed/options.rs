//! An embedded simulator's options ([`EmbedOptions`]: the step, the heading, the panels, the
//! layout, the timeline's range), as `mount()`'s `options`, the element's attributes and an
//! `?embed` link give them, each read on its own and every problem said.

use serde::Deserialize;

/// What an embedded simulator shows, from `mount`'s `options` or the `?embed` link's query.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EmbedOptions {
    /// Open after this many scenario steps (0: at the start).
    #[serde(default)]
    pub step: u64,
    /// Show the scenario's title, its retention settings and what to watch above the controls.
    #[serde(default = "yes")]
    pub heading: bool,
    /// The parts shown under the controls, in this order.
    #[serde(default = "Panel::all")]
    pub panels: Vec<Panel>,
    /// How much room the parts take ([`Layout`]).
    #[serde(default)]
    pub layout: Layout,
    /// The time range the timeline opens on, as a link's `t=` writes it
    /// (`2019-11-20T15:00..2019-11-21T06:00`, `0..1500`: [`crate::engine::time_range`]); none: the
    /// whole run.
    #[serde(default)]
    pub t: Option<String>,
}

fn yes() -> bool {
    true
}

impl Default for EmbedOptions {
    fn default() -> Self {
        EmbedOptions { step: 0, heading: true, panels: Panel::all(), layout: Layout::Full, t: None }
    }
}

/// A part of the simulator under its controls; each is the full page's own component.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Panel {
    /// The timeline of accesses, cleanup timers and state TTL per key.
    Timeline,
    /// "What just happened": the last action's consequences with their rules.
    Happened,
    /// Each operator's keyed state and changelog.
    Operators,
    /// The result table.
    Result,
    /// The retraction flow: the changelog travelling from the source through each operator to
    /// the result ([`RetractionFlow`]).
    Flow,
    /// The charts of state size, timers and emitted rows per operator ([`SimCharts`]), over the
    /// timeline's time range when the timeline is shown.
    Charts,
    /// The state inspector: every key's state entries, expiry and status ([`StateInspector`]).
    Inspector,
}

impl Panel {
    pub const NAMES: &'static str = "timeline, happened, operators, result, flow, charts, inspector";

    pub fn name(self) -> &'static str {
        match self {
            Panel::Timeline => "timeline",
            Panel::Happened => "happened",
            Panel::Operators => "operators",
            Panel::Result => "result",
            Panel::Flow => "flow",
            Panel::Charts => "charts",
            Panel::Inspector => "inspector",
        }
    }

    /// The default: the stepper's four (the retraction flow, the charts and the inspector are
    /// chosen by name).
    pub fn all() -> Vec<Panel> {
        vec![Panel::Timeline, Panel::Happened, Panel::Operators, Panel::Result]
    }

    /// Drawn across the whole width, one under the other, rather than in the two columns.
    pub(super) fn is_wide(self) -> bool {
        matches!(self, Panel::Timeline | Panel::Flow | Panel::Charts | Panel::Inspector)
    }
}

/// How much room an embedded simulator's parts take.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// As on the page: the timeline's rule written out, the controls at the page's size.
    #[default]
    Full,
    /// For a page that explains the scenario around the simulator (the book): the clock beside
    /// its label, smaller buttons, the timeline's rule folded under a summary line and its note
    /// on where lanes come from dropped, tighter cards, the charts three to a row where there is
    /// room (`www/embed.css`, `.compact`). The same parts, the same information otherwise.
    Compact,
}

impl EmbedOptions {
    /// Reads options from a JSON value (`null` for the defaults), each option on its own: every
    /// misspelt or invalid option is refused by name, all of them at once (one per line); `what`
    /// prefixes every message (`options`).
    ///
    /// # Errors
    /// The options and their rules, e.g. `options.panels[0]: unknown panel `timelin`, expected …`.
    pub fn from_value(value: serde_json::Value, what: &str) -> Result<EmbedOptions, String> {
        match EmbedOptions::read(value, what) {
            (options, errors) if errors.is_empty() => Ok(options),
            (_, errors) => Err(errors.join("\n")),
        }
    }

    /// [`EmbedOptions::from_value`], keeping what is valid: the options with every valid one
    /// set and every invalid one at its default, and what was wrong with each.
    pub fn read(value: serde_json::Value, what: &str) -> (EmbedOptions, Vec<String>) {
        let fields = match value {
            serde_json::Value::Null => return (EmbedOptions::default(), Vec::new()),
            serde_json::Value::Object(fields) => fields,
            other => {
                let e = format!("{what}: expected an object such as {{ \"step\": 2 }}, got {}", kind(&other));
                return (EmbedOptions::default(), vec![e]);
            }
        };
        // `options.panels[0]`, or for a link's parameters (`what` empty) `panels[0]`.
        let at = |rest: &str| if what.is_empty() { rest.to_string() } else { format!("{what}.{rest}") };
        let mut options = EmbedOptions::default();
        let mut errors = Vec::new();
        let mut bad_panel = false;
        let mut fields = fields;
        // Panels as a list, or as the element's attribute and a link take them: "timeline,result".
        if let Some(serde_json::Value::String(names)) = fields.get("panels") {
            let (items, empty) = panel_names(names);
            if let Some(e) = empty {
                errors.push(format!("{}: {e}", at("panels")));
            }
            fields.insert("panels".into(), serde_json::Value::Array(items));
        }
        for (name, value) in fields {
            let outcome = match name.as_str() {
                "step" => option(value).map(|v| options.step = v),
                // As a link and an attribute take it: "no", "off", … too (trial 26).
                "heading" => match value {
                    serde_json::Value::String(word) if flag(&word).is_some() => {
                        options.heading = flag(&word).unwrap_or(true);
                        Ok(())
                    }
                    other => option(other).map(|v| options.heading = v),
                },
                // Each panel on its own: every unknown name is said, not only the first.
                "panels" => match value {
                    serde_json::Value::Array(items) => {
                        options.panels.clear();
                        for (i, item) in items.into_iter().enumerate() {
                            match option(item).map_err(|(p, m)| (p, name_variant(&m, "panel"))) {
                                Ok(panel) => options.panels.push(panel),
                                Err((_, message)) => {
                                    bad_panel = true;
                                    errors.push(format!("{}: {message}", at(&format!("panels[{i}]"))));
                                }
                            }
                        }
                        Ok(())
                    }
                    other => option(other).map(|v| options.panels = v).map_err(|(p, m)| (p, name_variant(&m, "panel"))),
                },
                "layout" => option(value).map(|v| options.layout = v).map_err(|(p, m)| (p, name_variant(&m, "layout"))),
                "t" => option(value).map(|v| options.t = v),
                _ => Err((String::new(), format!("unknown field `{name}`, expected one of {}", option_list()))),
            };
            if let Err((path, message)) = outcome {
                errors.push(format!("{}{path}: {message}", at(&name)));
            }
        }
        if options.panels.is_empty() && !bad_panel {
            errors.push(format!("{}: name at least one of {}", at("panels"), Panel::NAMES));
        }
        for (i, p) in options.panels.iter().enumerate() {
            if options.panels[..i].contains(p) {
                errors.push(format!("{}: '{}' is listed twice", at(&format!("panels[{i}]")), p.name()));
            }
        }
        if let Some(Err(e)) = options.t.as_deref().map(crate::engine::time_range::parse_range) {
            errors.push(at(&e.to_string()));
            options.t = None;
        }
        if options.panels.is_empty() {
            options.panels = Panel::all();
        }
        // A panel listed twice (said above) is shown once.
        let mut seen = Vec::new();
        options.panels.retain(|p| {
            let first = !seen.contains(p);
            seen.push(*p);
            first
        });
        (options, errors)
    }
}

/// A yes-or-no parameter or attribute (`heading`): empty (present) or `true` / `yes` / `on` /
/// `1` for yes, `false` / `no` / `off` / `0` for no, in any case (trial 24: `heading=no` was
/// refused).
pub fn flag(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "" | "true" | "yes" | "on" | "1" => Some(true),
        "false" | "no" | "off" | "0" => Some(false),
        _ => None,
    }
}

/// Panel names as a link, an attribute and `options.panels` take them in one text:
/// `timeline,result` or `timeline result`; and what is wrong with it when a name between two
/// commas is empty (trial 26: `timeline,,result` was taken without a word).
pub fn panel_names(text: &str) -> (Vec<serde_json::Value>, Option<String>) {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    let empty = parts.len() > 1 && parts.iter().any(|p| p.is_empty());
    let names = parts.iter().flat_map(|p| p.split_whitespace()).map(|n| n.into()).collect();
    (names, empty.then(|| format!("{} has an empty name between commas", crate::engine::error::quote(text))))
}

/// The options' names, as [`EmbedOptions`]' fields.
const OPTION_NAMES: [&str; 5] = ["step", "heading", "panels", "layout", "t"];

/// `` `step`, `heading`, … `` as serde lists fields.
fn option_list() -> String {
    OPTION_NAMES.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
}

/// One option's value, or where in it (`[0]`, empty for the value itself) and what is wrong.
fn option<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let path = if path == "." { String::new() } else { path };
        (path, crate::engine::error::serde_message(&e.into_inner()))
    })
}

/// "unknown value `clock`, expected …" as "unknown panel `clock`, expected …": the option's
/// own noun (trial 22: `panels=bogus`); "expected a name, found the number 3" with the names
/// (trial 24: it was serde's "expected string or map").
fn name_variant(message: &str, noun: &str) -> String {
    let names = match noun {
        "panel" => {
            format!("one of {}", Panel::NAMES.split(", ").map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "))
        }
        _ => "`full` or `compact`".to_string(),
    };
    message.replacen("unknown value", &format!("unknown {noun}"), 1).replacen(
        "expected a name,",
        &format!("expected the name of a {noun}, {names},"),
        1,
    )
}

/// "a string", "an array", … for messages.
fn kind(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
