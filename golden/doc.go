// Package golden holds the reference models that hardware results are
// checked against: plain, obviously correct Go with no hwgen dependency.
// The compiler, the tests and the CLI all check against these models.
//
// Conventions, so every model reads the same way:
//
//   - Values are int64. A Tensor is a dense row-major array of them with
//     an explicit shape; a matrix is a Tensor of rank 2 ([rows, cols]), a
//     feature map one of rank 3 ([C, H, W], channels first, the NPU's
//     partition dimension).
//   - Hardware number formats are described by Int (width, signedness).
//     A model takes the Int of its result and wraps to it exactly as a
//     two's-complement register of that width does; models that saturate
//     (requantization, saturating elementwise) say so in their docs.
//   - Models are pure functions: they never modify their arguments and
//     return a new Tensor, or an error that names the mismatching shapes.
//     They never panic on bad shapes.
//   - A model is written for clarity, not speed: the straightforward
//     loop nest of the definition.
package golden
