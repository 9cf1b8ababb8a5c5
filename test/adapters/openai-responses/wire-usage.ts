// A Responses API `usage` object from its five counts, as the encoders must write it and the
// decoders read it. `total` is given, not summed here: the sum is what an encoder test checks.
export const responsesUsage = (u: {
  input: number;
  cached: number;
  output: number;
  reasoning: number;
  total: number;
}) => ({
  input_tokens: u.input,
  input_tokens_details: { cached_tokens: u.cached },
  output_tokens: u.output,
  output_tokens_details: { reasoning_tokens: u.reasoning },
  total_tokens: u.total,
});
