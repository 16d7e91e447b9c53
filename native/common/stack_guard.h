// A guard against running out of the calling thread's stack in recursive code.
//
// Statements run on threads whose stacks differ: the execution slots' worker threads, the
// JavaScript thread (short reads run inline, querySync; V8's main thread or a Node worker's),
// test threads. The parser bounds the depth of what it builds (parser::kMaxNestingDepth), which
// keeps every recursive walk over a query small; CheckStackDepth is the second line of defence:
// recursive functions call it on entry, and it throws a QUERY_SYNTAX error naming the cause when
// less than kStackReserve bytes of the thread's stack are left, instead of letting the process
// die of a stack overflow.
//
// Thread-safety: each thread looks up its own stack's bounds once (thread-local).
#pragma once

#include <cstddef>

namespace graphdb {

// Stack kept free for the work between two checks and for throwing the error.
inline constexpr size_t kStackReserve = 96 * 1024;

// Bytes of stack left below the caller's frame on this thread; SIZE_MAX when the bounds are
// unknown (then CheckStackDepth never throws).
size_t StackRemaining();

// Throws GraphDBException(kQuerySyntax) when StackRemaining() < kStackReserve.
void CheckStackDepth();

}  // namespace graphdb
