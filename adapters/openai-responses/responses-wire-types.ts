// Shapes of the Responses API objects polygate writes
// (https://platform.openai.com/docs/api-reference/responses/object). Only what the encoders build;
// decoders read wire input as `unknown` and narrow it.

export type UrlCitation = { type: 'url_citation'; start_index: number; end_index: number; title: string; url: string };
export type FileCitation = { type: 'file_citation'; file_id: string; index: number };
export type Annotation = UrlCitation | FileCitation;

export type OutputText = { type: 'output_text'; annotations: Annotation[]; logprobs: never[]; text: string };
export type RefusalContent = { type: 'refusal'; refusal: string };
export type MessageContent = OutputText | RefusalContent;

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export type MessageItem = {
  id: string;
  type: 'message';
  status: ItemStatus;
  content: MessageContent[];
  role: 'assistant';
};
/** `namespace` names the namespace tool the function belongs to (tool-identities.ts). */
export type FunctionCallItem = {
  id: string;
  type: 'function_call';
  status: ItemStatus;
  arguments: string;
  call_id: string;
  name: string;
  namespace?: string;
};
/** A free-form tool's call (tool-identities.ts). */
export type CustomToolCallItem = {
  id: string;
  type: 'custom_tool_call';
  status: ItemStatus;
  call_id: string;
  input: string;
  name: string;
  namespace?: string;
};
export type SummaryText = { type: 'summary_text'; text: string };
export type ReasoningItem = {
  id: string;
  type: 'reasoning';
  summary: SummaryText[];
  encrypted_content?: string | null;
};
/** Images a model produced (e.g. Gemini image output) travel as image generation results. */
export type ImageGenerationItem = { id: string; type: 'image_generation_call'; status: 'completed'; result: string };
/** A web search (or page opened) run for the answer; polygate's own (docs/hosted-tools.md). */
export type WebSearchCallItem = {
  id: string;
  type: 'web_search_call';
  status: 'in_progress' | 'searching' | 'completed' | 'failed';
  action:
    | { type: 'search'; query: string; sources: Array<{ type: 'url'; url: string }> }
    | { type: 'open_page'; url: string };
};
export type OutputItem =
  MessageItem | FunctionCallItem | CustomToolCallItem | ReasoningItem | ImageGenerationItem | WebSearchCallItem;

export type ResponseUsage = {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
};

export type ResponseStatus = 'completed' | 'incomplete' | 'failed' | 'in_progress';
export type ResponseErrorObject = { code: string; message: string };
export type IncompleteDetails = { reason: 'max_output_tokens' | 'content_filter' };

export type ResponseObject = {
  id: string;
  object: 'response';
  created_at: number;
  status: ResponseStatus;
  error: ResponseErrorObject | null;
  incomplete_details: IncompleteDetails | null;
  instructions: string | null;
  max_output_tokens: number | null;
  model: string;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: string | null;
  reasoning: { effort: string | null; summary: string | null };
  service_tier?: string;
  store: boolean;
  temperature: number;
  text: { format: Record<string, unknown>; verbosity?: string };
  tool_choice: string | Record<string, unknown>;
  tools: Array<Record<string, unknown>>;
  top_p: number;
  truncation: string;
  usage: ResponseUsage | null;
  user: string | null;
  metadata: Record<string, string>;
};
