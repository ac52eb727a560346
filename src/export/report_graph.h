/* report_graph.h — the HTML report's event flow graph section
 * (report_graph.c). */
#ifndef TF_EXPORT_REPORT_GRAPH_H
#define TF_EXPORT_REPORT_GRAPH_H

#include <stdint.h>
#include <stdio.h>

#include "tracefold.h"

/* Graphs above max_nodes nodes or this many edges per allowed node are not
 * drawn (dot would take long and the drawing would be unreadable); the
 * section says so and how to draw them. */
#define XP_GRAPH_EDGES_PER_NODE 4

/* Writes <section id="flow-graph"> into f: the merged event flow graph of
 * trace t (named `name` in the text) as inline SVG drawn by Graphviz dot,
 * or a paragraph saying why there is no drawing (a flat trace, a graph
 * above max_nodes nodes or XP_GRAPH_EDGES_PER_NODE x max_nodes edges,
 * max_nodes 0, dot missing or failing). The section's attributes
 * data-nodes, data-edges (the graph's sizes) and data-drawn (1 or 0) say
 * what it holds. Never fails the report: 0, or -1 when memory ran out. */
int xp_report_flow_graph(FILE *f, tf_trace *t, const char *name, uint32_t max_nodes);

#endif
