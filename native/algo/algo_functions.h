// The graph-algorithm table functions (docs/algorithms.md), with Kùzu's names, aliases,
// optional parameters, defaults, result columns and errors:
//
//   project_graph(name, nodes, rels)        a projected graph of this connection; nodes and
//                                           rels: a list of table names, or a map of table
//                                           name to filter ('n.age > 30' / 'r.since > 2000')
//   show_projected_graphs()                 name, type (NATIVE)
//   drop_projected_graph(name)
//   page_rank / pr                          node, rank
//   weakly_connected_components / wcc       node, group_id
//   strongly_connected_components / scc     node, group_id   (Tarjan)
//   strongly_connected_components_kosaraju / scc_ko          (Kosaraju)
//   k_core_decomposition / kcore            node, k_degree
//   louvain                                 node, louvain_id
//   spanning_forest / sf                    src, dst, rel, forest_id
// and beyond Kùzu: leiden, label_propagation / lpa, local_clustering_coefficient / lcc,
// triangle_count, bfs, sssp.
//
// The binding half plugs into the binder's CALL (cypher/binder/table_functions.h), the running
// half into the executor's (exec/table_functions.h); RegisterAlgorithms installs both.
#pragma once

namespace graphdb::algo {

// Makes the functions known to the binder and the executor. Idempotent; thread-safe.
void RegisterAlgorithms();

}  // namespace graphdb::algo
