//! The rewrites Flink 2.3's stream optimizer applies to these trees (`FlinkStreamProgram`),
//! reduced to their effect on the nodes the engine runs:
//!
//! - **field trimming** (`RelFieldTrimmer`, `ProjectTableSourceScanRule` without projection
//!   push-down into the source): every node reads only the fields something above it uses; a
//!   projection goes right above the node that produces more (the scan, a rank, an aggregate);
//! - **Calc merging** (`FlinkCalcMergeRule`, `FlinkProjectMergeRule`, `FlinkFilterProjectTransposeRule`):
//!   projections and filters between two other nodes become one `Calc`, the filter evaluated on
//!   the lower node's fields;
//! - **trivial Calc removal** (`ProjectRemoveRule`, `CalcRemoveRule`): a Calc that selects all
//!   its input's fields in order without a condition is dropped (field names do not count);
//! - **window naming** (`ProjectToWindowRule` / `CalcRelSplitter`): the projections around an
//!   `OverAggregate` name their computed fields `$<index>` when the windowed SELECT has as many
//!   fields as its input ([`dollar_names`]).

use super::rel::{Ex, Node, Rel};

/// The rewritten tree.
pub fn optimize(rel: Rel) -> Rel {
    let all: Vec<usize> = (0..rel.names.len()).collect();
    let trimmed = trim(rel, &all);
    dollar_names(merge(trimmed))
}

/// `rel` producing exactly the fields `needed` (indexes into its output, in order).
fn trim(rel: Rel, needed: &[usize]) -> Rel {
    let (rel, map) = trim_node(rel, needed);
    project(rel, &map)
}

/// `rel` reading only what it needs to produce `needed`, and where each needed field is in its
/// output (a node that cannot drop a field keeps it; the projection goes above it).
fn trim_node(rel: Rel, needed: &[usize]) -> (Rel, Vec<usize>) {
    let Rel { node, names } = rel;
    match node {
        node @ Node::Scan(_) => (Rel { node, names }, needed.to_vec()),
        Node::Join { left, right, join_type, left_keys, right_keys, right_first, condition, hints, snapshot } => {
            let width = left.names.len();
            let mut used: Vec<usize> = needed.to_vec();
            used.extend(&left_keys);
            used.extend(right_keys.iter().map(|&r| width + r));
            if let Some(c) = &condition {
                c.columns(&mut used);
            }
            // A LATERAL SNAPSHOT join's build input keeps all its fields: the engine tracks the
            // row-time attribute only from a source read directly (`LateralSnapshotJoin`), where
            // Flink would project the build side keeping the attribute.
            if snapshot.is_some() {
                used.extend(width..width + right.names.len());
            }
            used.sort_unstable();
            used.dedup();
            let left_needed: Vec<usize> = used.iter().copied().filter(|&c| c < width).collect();
            let right_needed: Vec<usize> = used.iter().filter(|&&c| c >= width).map(|&c| c - width).collect();
            let left = trim(*left, &left_needed);
            let right = trim(*right, &right_needed);
            let pos = |c: usize| used.iter().position(|&u| u == c).unwrap_or(0);
            let in_right = |r: usize| right_needed.iter().position(|&u| u == r).unwrap_or(0);
            let names = match join_type {
                "SEMI" | "ANTI" => left.names.clone(),
                _ => super::rel::join_names(&left.names, &right.names),
            };
            let join = Rel {
                node: Node::Join {
                    left_keys: left_keys.iter().map(|&l| pos(l)).collect(),
                    right_keys: right_keys.iter().map(|&r| in_right(r)).collect(),
                    right_first,
                    condition: condition.map(|c| c.map_columns(&|i| Ex::Col(pos(i)))),
                    left: Box::new(left),
                    right: Box::new(right),
                    join_type,
                    hints,
                    snapshot,
                },
                names,
            };
            (join, needed.iter().map(|&i| pos(i)).collect())
        }
        Node::Calc { input, items, condition } => {
            let kept: Vec<Ex> = needed.iter().map(|&i| items[i].clone()).collect();
            let mut used = Vec::new();
            for e in kept.iter().chain(condition.iter()) {
                e.columns(&mut used);
            }
            used.sort_unstable();
            used.dedup();
            // The input as it comes (the projection above a node that cannot drop fields is
            // this Calc itself).
            let (input, at) = trim_node(*input, &used);
            let remap = |c: usize| Ex::Col(at[used.iter().position(|&u| u == c).unwrap_or(0)]);
            let calc = Rel {
                node: Node::Calc {
                    input: Box::new(input),
                    items: kept.iter().map(|e| e.map_columns(&remap)).collect(),
                    condition: condition.map(|c| c.map_columns(&remap)),
                },
                names: needed.iter().map(|&i| names[i].clone()).collect(),
            };
            (calc, (0..needed.len()).collect())
        }
        Node::Aggregate { input, group, calls, hint_ttl } => {
            // `AggregateProjectMergeRule`: a projection of plain fields under an aggregate is
            // absorbed, the aggregate reading those fields of the projection's input.
            let (input, group, calls) = match input.node {
                Node::Calc { input: below, items, condition: None }
                    if items.iter().all(|e| matches!(e, Ex::Col(_))) =>
                {
                    let through = |i: usize| match items[i] {
                        Ex::Col(j) => j,
                        _ => i,
                    };
                    let calls = calls
                        .into_iter()
                        .map(|mut c| {
                            c.args = c.args.iter().map(|&a| through(a)).collect();
                            c.filter = c.filter.map(through);
                            c
                        })
                        .collect::<Vec<_>>();
                    (below, group.into_iter().map(through).collect::<Vec<_>>(), calls)
                }
                node => (Box::new(Rel { node, names: input.names }), group, calls),
            };
            let g = group.len();
            let kept_calls: Vec<usize> = needed.iter().filter(|&&i| i >= g).map(|&i| i - g).collect();
            let mut kept_calls = kept_calls;
            kept_calls.sort_unstable();
            kept_calls.dedup();
            let mut used: Vec<usize> = group.clone();
            used.extend(kept_calls.iter().flat_map(|&c| calls[c].args.iter().copied().chain(calls[c].filter)));
            used.sort_unstable();
            used.dedup();
            let input = trim(*input, &used);
            let pos = |c: usize| used.iter().position(|&u| u == c).unwrap_or(0);
            let mut out_names: Vec<String> = names[..g].to_vec();
            out_names.extend(kept_calls.iter().map(|&c| names[g + c].clone()));
            let new_calls = kept_calls
                .iter()
                .map(|&c| {
                    let mut call = calls[c].clone();
                    call.args = call.args.iter().map(|&a| pos(a)).collect();
                    call.filter = call.filter.map(pos);
                    call
                })
                .collect();
            let agg = Rel {
                node: Node::Aggregate {
                    input: Box::new(input),
                    group: group.iter().map(|&i| pos(i)).collect(),
                    calls: new_calls,
                    hint_ttl,
                },
                names: out_names,
            };
            // Output fields of the new aggregate for each needed old field.
            let map: Vec<usize> = needed
                .iter()
                .map(|&i| if i < g { i } else { g + kept_calls.iter().position(|&c| c == i - g).unwrap_or(0) })
                .collect();
            (agg, map)
        }
        Node::Over { input, partition, order, frame, calls, dollar_names } => {
            let n = input.names.len();
            let mut kept_calls: Vec<usize> = needed.iter().filter(|&&i| i >= n).map(|&i| i - n).collect();
            kept_calls.sort_unstable();
            kept_calls.dedup();
            let mut used: Vec<usize> = needed.iter().copied().filter(|&i| i < n).collect();
            used.extend(&partition);
            used.push(order);
            used.extend(kept_calls.iter().flat_map(|&c| calls[c].args.iter().copied().chain(calls[c].filter)));
            used.sort_unstable();
            used.dedup();
            let input = trim(*input, &used);
            let pos = |c: usize| used.iter().position(|&u| u == c).unwrap_or(0);
            let mut out_names = input.names.clone();
            out_names.extend(kept_calls.iter().map(|&c| names[n + c].clone()));
            let new_calls = kept_calls
                .iter()
                .map(|&c| {
                    let mut call = calls[c].clone();
                    call.args = call.args.iter().map(|&a| pos(a)).collect();
                    call.filter = call.filter.map(pos);
                    call
                })
                .collect();
            let m = used.len();
            let over = Rel {
                node: Node::Over {
                    input: Box::new(input),
                    partition: partition.iter().map(|&p| pos(p)).collect(),
                    order: pos(order),
                    frame,
                    calls: new_calls,
                    dollar_names,
                },
                names: out_names,
            };
            let map: Vec<usize> = needed
                .iter()
                .map(|&i| if i < n { pos(i) } else { m + kept_calls.iter().position(|&c| c == i - n).unwrap_or(0) })
                .collect();
            (over, map)
        }
        Node::Rank { input, partition, order, rank_end, .. } => {
            let n = input.names.len();
            let output_rank = needed.contains(&n);
            let mut used: Vec<usize> = needed.iter().copied().filter(|&i| i < n).collect();
            used.extend(&partition);
            used.extend(order.iter().map(|o| o.0));
            used.sort_unstable();
            used.dedup();
            let input = trim(*input, &used);
            let pos = |c: usize| used.iter().position(|&u| u == c).unwrap_or(0);
            let mut out_names = input.names.clone();
            if output_rank {
                out_names.push(names[n].clone());
            }
            let m = used.len();
            let rank = Rel {
                node: Node::Rank {
                    input: Box::new(input),
                    partition: partition.iter().map(|&p| pos(p)).collect(),
                    order: order.iter().map(|&(o, d)| (pos(o), d)).collect(),
                    rank_end,
                    output_rank,
                },
                names: out_names,
            };
            let map: Vec<usize> = needed.iter().map(|&i| if i < n { pos(i) } else { m }).collect();
            (rank, map)
        }
        node @ Node::RowNumber { .. } => (Rel { node, names }, needed.to_vec()),
    }
}

/// `rel` projected onto `fields` (a Calc of plain fields; none when that is all of them).
fn project(rel: Rel, fields: &[usize]) -> Rel {
    if fields.len() == rel.names.len() && fields.iter().enumerate().all(|(i, &f)| i == f) {
        return rel;
    }
    let names = fields.iter().map(|&i| rel.names[i].clone()).collect();
    Rel {
        node: Node::Calc { input: Box::new(rel), items: fields.iter().map(|&i| Ex::Col(i)).collect(), condition: None },
        names,
    }
}

/// Merges adjacent Calcs and drops trivial ones, bottom-up.
fn merge(rel: Rel) -> Rel {
    let Rel { node, names } = rel;
    let node = match node {
        node @ Node::Scan(_) => node,
        Node::Join { left, right, join_type, left_keys, right_keys, right_first, condition, hints, snapshot } => {
            Node::Join {
                left: Box::new(merge(*left)),
                right: Box::new(merge(*right)),
                join_type,
                left_keys,
                right_keys,
                right_first,
                condition,
                hints,
                snapshot,
            }
        }
        Node::Calc { input, items, condition } => {
            let input = merge(*input);
            if let Node::Calc { input: lower, items: lower_items, condition: lower_condition } = input.node {
                let sub = |c: usize| lower_items[c].clone();
                let items: Vec<Ex> = items.iter().map(|e| e.map_columns(&sub)).collect();
                // The upper condition's conjuncts come first (real Flink 2.3 prints
                // `AND(<outer WHERE>, <view's WHERE>)`: `calc_filter_over_view`).
                let condition = match (condition.map(|c| c.map_columns(&sub)), lower_condition) {
                    (Some(a), Some(b)) => Some(Ex::And(Box::new(a), Box::new(b))),
                    (a, b) => a.or(b),
                };
                return remove_trivial(Rel { node: Node::Calc { input: lower, items, condition }, names });
            }
            return remove_trivial(Rel { node: Node::Calc { input: Box::new(input), items, condition }, names });
        }
        Node::Aggregate { input, group, calls, hint_ttl } => {
            Node::Aggregate { input: Box::new(merge(*input)), group, calls, hint_ttl }
        }
        Node::Over { input, partition, order, frame, calls, dollar_names } => {
            Node::Over { input: Box::new(merge(*input)), partition, order, frame, calls, dollar_names }
        }
        Node::Rank { input, partition, order, rank_end, output_rank } => {
            Node::Rank { input: Box::new(merge(*input)), partition, order, rank_end, output_rank }
        }
        Node::RowNumber { input, partition, order, at } => {
            Node::RowNumber { input: Box::new(merge(*input)), partition, order, at }
        }
    };
    Rel { node, names }
}

/// A Calc selecting every input field in order without a condition is its input (renamed:
/// Flink's plan keeps the input's names; the query's names are the sink's).
fn remove_trivial(rel: Rel) -> Rel {
    if let Node::Calc { input, items, condition: None } = &rel.node {
        if items.len() == input.names.len() && items.iter().enumerate().all(|(i, e)| *e == Ex::Col(i)) {
            if let Node::Calc { input, .. } = rel.node {
                return *input;
            }
        }
    }
    rel
}

/// Names the computed fields around an `OverAggregate` whose windowed SELECT had as many fields
/// as its input `$<index>` (`CalcRelSplitter`, see `convert.rs`): the projection below it, and
/// the window outputs the projection above it selects as they are.
fn dollar_names(rel: Rel) -> Rel {
    let Rel { node, mut names } = rel;
    let node = match node {
        node @ Node::Scan(_) => node,
        Node::Join { left, right, join_type, left_keys, right_keys, right_first, condition, hints, snapshot } => {
            Node::Join {
                left: Box::new(dollar_names(*left)),
                right: Box::new(dollar_names(*right)),
                join_type,
                left_keys,
                right_keys,
                right_first,
                condition,
                hints,
                snapshot,
            }
        }
        Node::Calc { input, items, condition } => {
            let input = dollar_names(*input);
            if let Node::Over { input: below, dollar_names: true, .. } = &input.node {
                let n = below.names.len();
                for (i, e) in items.iter().enumerate() {
                    if matches!(e, Ex::Col(k) if *k >= n) {
                        names[i] = format!("${i}");
                    }
                }
            }
            Node::Calc { input: Box::new(input), items, condition }
        }
        Node::Aggregate { input, group, calls, hint_ttl } => {
            Node::Aggregate { input: Box::new(dollar_names(*input)), group, calls, hint_ttl }
        }
        Node::Over { input, partition, order, frame, calls, dollar_names: dollar } => {
            let mut input = dollar_names(*input);
            if dollar {
                if let Node::Calc { items, .. } = &input.node {
                    for (i, e) in items.iter().enumerate() {
                        if !matches!(e, Ex::Col(_)) {
                            input.names[i] = format!("${i}");
                            names[i] = format!("${i}");
                        }
                    }
                }
            }
            Node::Over { input: Box::new(input), partition, order, frame, calls, dollar_names: dollar }
        }
        Node::Rank { input, partition, order, rank_end, output_rank } => {
            Node::Rank { input: Box::new(dollar_names(*input)), partition, order, rank_end, output_rank }
        }
        Node::RowNumber { input, partition, order, at } => {
            Node::RowNumber { input: Box::new(dollar_names(*input)), partition, order, at }
        }
    };
    Rel { node, names }
}
