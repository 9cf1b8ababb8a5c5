// The Responses API's streamed event types for an answer of one text message, in order
// (https://platform.openai.com/docs/api-reference/responses-streaming): what both an encoder and an
// emulator must send, whoever is under test.
export const textResponseEventTypes = (deltas: number): string[] => [
  'response.created',
  'response.in_progress',
  'response.output_item.added',
  'response.content_part.added',
  ...Array.from({ length: deltas }, () => 'response.output_text.delta'),
  'response.output_text.done',
  'response.content_part.done',
  'response.output_item.done',
  'response.completed',
];
