// Inline media as base64 `data:` URLs, as the OpenAI formats carry it: Chat Completions'
// `image_url.url` and `file.file_data`, Responses' `input_image.image_url` and `input_file.file_data`
// (https://platform.openai.com/docs/guides/images-vision, https://platform.openai.com/docs/guides/pdf-files).

export type DataUrl = { mediaType: string; data: string };

/** Parses a base64 `data:` URL; undefined for anything else (plain URLs, non-base64 data URLs). */
export function parseDataUrl(url: string): DataUrl | undefined {
  const m = /^data:([^;,]*)((?:;[^;,]*)*);base64,/i.exec(url);
  if (!m) return undefined;
  return { mediaType: m[1] || 'application/octet-stream', data: url.slice(m[0].length) };
}

export const dataUrlOf = (mediaType: string, data: string): string => `data:${mediaType};base64,${data}`;

export const isHttpUrl = (s: string): boolean => /^https?:\/\/[^\s]+$/i.test(s);
