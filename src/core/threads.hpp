#pragma once
namespace sarfuse::core {
// Resolves a requested thread count: 0 = all cores.
int resolve_threads(int requested);
}
