//===- AimzOps.td - Operations of the aimz dialect ---------*- tablegen -*-===//
#ifndef AIMZ_OPS_TD
#define AIMZ_OPS_TD

include "aimz/Dialect/AimzDialect.td"
include "aimz/Dialect/AimzEnums.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Aimz_Op<string mnemonic, list<Trait> traits = []>
    : Op<Aimz_Dialect, mnemonic, traits>;

def Aimz_ModelOp : Aimz_Op<"model", [IsolatedFromAbove, SingleBlock,
                                     NoTerminator, Symbol]> {
  let summary = "A whole model: inputs, latents, sites and the output";
  let description = [{
    `joint_observations`: a site has the observation axis as an event axis,
    so every call covers all observations as one block (plan `draw`).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name, StrAttr:$obs_dim,
                       StrAttr:$plan, StrArrayAttr:$symbols,
                       StrAttr:$manifest, UnitAttr:$joint_observations);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$sym_name attr-dict-with-keyword $body";
  let hasVerifier = 1;
}

def Aimz_InputOp : Aimz_Op<"input", [Pure]> {
  let summary = "A model input, read from the caller's data";
  let description = [{
    With `observed`, the observed values of output `index`: an output with
    no `~` statement that factors read (the log-likelihood's data; the
    runtime refuses to predict such a model).
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$index,
                       DefaultValuedAttr<BoolAttr, "false">:$observed);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = "$name `[` $index `]` attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Aimz_ConstantOp : Aimz_Op<"constant", [Pure]> {
  let summary = "A scalar constant";
  let arguments = (ins TypedAttrInterface:$value);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = "attr-dict $value `->` type($result)";
  let hasVerifier = 1;
}

def Aimz_DimOp : Aimz_Op<"dim", [Pure]> {
  let summary = "The extent of a dimension bound at run time, as a scalar";
  let description = [{
    The whole extent (for the observation axis: every observation, not the
    block or the shard), so the value is the same whatever the partition.
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Aimz_IotaOp : Aimz_Op<"iota", [Pure]> {
  let summary = "Each element's index along dim `axis` (arange, eye)";
  let arguments = (ins I64Attr:$axis);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = "$axis attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Aimz_BroadcastOp : Aimz_Op<"broadcast", [Pure]> {
  let summary = "View an array in a larger shape without copying";
  let description = [{
    `dim_map[i]` is the result dim that operand dim `i` becomes; result dims
    no operand dim maps to, and operand dims of extent 1, repeat.
  }];
  let arguments = (ins Aimz_ArrayType:$input, DenseI64ArrayAttr:$dim_map);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $input $dim_map attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_SliceOp : Aimz_Op<"slice", [Pure]> {
  let summary = "A view of part of an array (NumPy's basic indexing)";
  let description = [{
    Operand dim `i` starts at `starts[i]` (an integer or a dimension's
    text); a dim with `dropped[i]` is indexed at that start and removed,
    the others keep the result's extents in order. The observation axis is
    never cut.
  }];
  let arguments = (ins Aimz_ArrayType:$input, ArrayAttr:$starts,
                       DenseBoolArrayAttr:$dropped);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $input `starts` $starts `dropped` $dropped attr-dict `:` type($input)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_TransposeOp : Aimz_Op<"transpose", [Pure]> {
  let summary = "A view with the dims permuted: result dim i is operand "
                "dim permutation[i]";
  let arguments = (ins Aimz_ArrayType:$input,
                       DenseI64ArrayAttr:$permutation);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $input $permutation attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_CastOp : Aimz_Op<"cast", [Pure]> {
  let summary = "Convert the element type (same shape)";
  let arguments = (ins Aimz_ArrayType:$input);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Aimz_UnaryOp : Aimz_Op<"unary", [Pure]> {
  let summary = "Elementwise function (Aimz_UnaryFn)";
  let arguments = (ins Aimz_UnaryFn:$fn, Aimz_ArrayType:$input);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = "$fn $input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Aimz_BinaryOp : Aimz_Op<"binary", [Pure]> {
  let summary = "Elementwise operator (Aimz_BinaryFn) on equally shaped "
                "operands";
  // `exponent`: pow's right operand when it is an integer literal, exactly
  // (the operand itself is rounded to the float type: 2^24 + 1 in f32).
  let arguments = (ins Aimz_BinaryFn:$fn, Aimz_ArrayType:$lhs,
                       Aimz_ArrayType:$rhs, OptionalAttr<I64Attr>:$exponent);
  let results = (outs Aimz_ArrayType:$result);
  let builders = [
    OpBuilder<(ins "::mlir::Type":$result, "BinaryFn":$fn, "::mlir::Value":$lhs,
                   "::mlir::Value":$rhs), [{
      build($_builder, $_state, result, fn, lhs, rhs, ::mlir::IntegerAttr());
    }]>
  ];
  let assemblyFormat = [{
    $fn $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_SelectOp : Aimz_Op<"select", [Pure]> {
  let summary = "Elementwise choice, NumPy's where(cond, a, b): a where cond "
                "holds, else b; every operand of the result's shape";
  let arguments = (ins Aimz_ArrayType:$cond, Aimz_ArrayType:$lhs,
                       Aimz_ArrayType:$rhs);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $cond `,` $lhs `,` $rhs attr-dict `:` type($cond) `,` type($lhs) `,`
    type($rhs) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_MatMulOp : Aimz_Op<"matmul", [Pure]> {
  let summary = "Matrix product of the dims after `batch_rank` plate dims";
  let arguments = (ins Aimz_ArrayType:$lhs, Aimz_ArrayType:$rhs,
                       I64Attr:$batch_rank);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs `batch` $batch_rank attr-dict `:` type($lhs) `,` type($rhs)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_StackOp : Aimz_Op<"stack", [Pure]> {
  let summary = "Equally shaped operands stacked along a new dim `axis`";
  let arguments = (ins Variadic<Aimz_ArrayType>:$elements, I64Attr:$axis);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $elements `axis` $axis attr-dict `:` type($elements) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_ConcatOp : Aimz_Op<"concat", [Pure]> {
  let summary = "Operands joined end to end along their dim `axis`";
  let arguments = (ins Variadic<Aimz_ArrayType>:$elements, I64Attr:$axis);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $elements `axis` $axis attr-dict `:` type($elements) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_CholeskyOp : Aimz_Op<"cholesky", [Pure]> {
  let summary = "Lower Cholesky factor of the two dims after `batch_rank`";
  let description = [{
    The lower triangle of each symmetric positive-definite matrix is read;
    a matrix that is not positive definite gives NaN everywhere.
  }];
  let arguments = (ins Aimz_ArrayType:$input, I64Attr:$batch_rank);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $input `batch` $batch_rank attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_InverseOp : Aimz_Op<"inverse", [Pure]> {
  let summary = "Inverse of each square matrix in the two dims after "
                "`batch_rank`";
  let description = [{
    Gauss-Jordan elimination with partial pivoting; a singular matrix gives
    NaN everywhere.
  }];
  let arguments = (ins Aimz_ArrayType:$input, I64Attr:$batch_rank);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $input `batch` $batch_rank attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_SortOp : Aimz_Op<"sort", [Pure]> {
  let summary = "Stable ascending order along the last dim (after "
                "`batch_rank`)";
  let description = [{
    Equal values keep their order and NaN sorts last (JAX's sort and
    argsort). The sorted values, or with `indices` their positions (i64).
  }];
  let arguments = (ins Aimz_ArrayType:$input, I64Attr:$batch_rank,
                       UnitAttr:$indices);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $input `batch` $batch_rank (`indices` $indices^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_ReduceOp : Aimz_Op<"reduce", [Pure]> {
  let summary = "sum, mean, min, max or logsumexp over every dim after "
                "`batch_rank`, or over the one dim `axis`";
  let arguments = (ins Aimz_ReduceFn:$fn, Aimz_ArrayType:$input,
                       I64Attr:$batch_rank,
                       OptionalAttr<I64Attr>:$axis);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $fn $input `batch` $batch_rank (`axis` $axis^)? attr-dict `:`
    type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_CumSumOp : Aimz_Op<"cumsum", [Pure]> {
  let summary = "Running sums (running products with `product`) along dim "
                "`axis` (same shape)";
  let arguments = (ins Aimz_ArrayType:$input, I64Attr:$axis,
                       UnitAttr:$product);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $input `axis` $axis (`product` $product^)? attr-dict `:` type($input)
    `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_GatherOp : Aimz_Op<"gather", [Pure]> {
  let summary = "Index the dims after `batch_rank` with integer arrays";
  let description = [{
    All indices have the result's leading shape; an index out of range makes
    the entry point fail with a status instead of reading out of bounds.
  }];
  let arguments = (ins Aimz_ArrayType:$base, Variadic<Aimz_ArrayType>:$indices,
                       I64Attr:$batch_rank);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $base `[` $indices `]` `batch` $batch_rank attr-dict `:` type($base) `,`
    type($indices) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_LogProbOp : Aimz_Op<"log_prob", [Pure]> {
  let summary = "A distribution's log density at a value, elementwise";
  let description = [{
    `log_prob(Dist(...), x)` in a model: the runtime's log density of a
    distribution of numbers (Distributions.def), or with `fn` "log_cdf" /
    "log_ccdf" its log CDF / log survival function (CdfDistributions.def),
    at each element of the
    value, the value and the parameters all of the result's dims (the
    parameters and the result in the model's precision). A `value_map`
    (ValueTransforms.def) scores a TransformedDistribution: the base's
    density at the inverse map of the value plus the inverse's log
    Jacobian; its parameters follow the base's.
  }];
  let arguments = (ins StrAttr:$dist, StrArrayAttr:$param_names,
                       Aimz_ArrayType:$value,
                       Variadic<Aimz_ArrayType>:$params,
                       DefaultValuedStrAttr<StrAttr, "log_prob">:$fn,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$value_map);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $dist `(` $params `)` `at` $value attr-dict `:` `(` type($params) `)`
    `,` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_SampleOp : Aimz_Op<"sample"> {
  let summary = "A latent site: read from the posterior, or drawn";
  let description = [{
    Parameters are broadcast to the site's full shape. The value comes from
    the caller's posterior when it has this site, otherwise it is drawn with
    the counter-based generator at (site_id, draw, observation, element)
    and, with a `value_map` (ValueTransforms.def, its parameters after the
    base's), mapped through it.
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$site_id, StrAttr:$dist,
                       StrArrayAttr:$param_names, StrAttr:$site_class,
                       StrArrayAttr:$plates,
                       Variadic<Aimz_ArrayType>:$params,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$value_map);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $name `=` $dist `(` $params `)` attr-dict `:` functional-type($params, $result)
  }];
  let hasVerifier = 1;
}

def Aimz_ObserveOp : Aimz_Op<"observe"> {
  let summary = "An output site: sampled when predicting, scored when "
                "computing the log-likelihood";
  let description = [{
    `output_index` is the output's position in the signature: the
    log-likelihood reads its observed values from `observed[output_index]`.
    A `value_map` (ValueTransforms.def, its parameters after the base's)
    maps the base's draws, and scores a value by the base's density at its
    inverse plus the inverse's log Jacobian.
  }];
  let arguments = (ins StrAttr:$name, I64Attr:$site_id, StrAttr:$dist,
                       StrArrayAttr:$param_names, StrArrayAttr:$plates,
                       DefaultValuedAttr<I64Attr, "0">:$output_index,
                       Variadic<Aimz_ArrayType>:$params,
                       DefaultValuedAttr<StrArrayAttr, "{}">:$value_map);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $name `=` $dist `(` $params `)` attr-dict `:` functional-type($params, $result)
  }];
  let hasVerifier = 1;
}

def Aimz_DeterministicOp : Aimz_Op<"deterministic"> {
  let summary = "A recorded value, returned on request";
  let arguments = (ins StrAttr:$name, I64Attr:$site_id, StrArrayAttr:$plates,
                       Aimz_ArrayType:$value);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $name `=` $value attr-dict `:` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Aimz_FactorOp : Aimz_Op<"factor"> {
  let summary = "A term of the log density, returned by the log-likelihood";
  let arguments = (ins StrAttr:$name, I64Attr:$site_id, StrArrayAttr:$plates,
                       Aimz_ArrayType:$value);
  let results = (outs Aimz_ArrayType:$result);
  let assemblyFormat = [{
    $name `=` $value attr-dict `:` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // AIMZ_OPS_TD
