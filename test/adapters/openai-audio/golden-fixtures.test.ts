// Golden fixtures of the openai-audio format (docs/architecture.md, "Tests"): a client request to
// the IR and on to an upstream request; an IR transcript to each text response format.
import t from 'tap';
import {
  decodeSpeechRequest,
  encodeSpeechUpstreamRequest,
  encodeTranscript,
} from '../../../adapters/openai-audio/index.ts';
import type { Transcript } from '../../../src/ir/transcription.ts';
import { fixtureFiles } from '../../helpers/fixture-files.ts';

const { json, text } = fixtureFiles('openai-audio');

t.test('speech-full: request → IR → upstream request', async (t) => {
  const ir = decodeSpeechRequest(json('speech-full.request.json'));
  t.same(ir, json('speech-full.ir.json'));
  t.same(encodeSpeechUpstreamRequest(ir, 'tts-1-hd').body, json('speech-full.upstream.json'));
});

t.test('transcript-two-segments: IR → text, srt, vtt', async (t) => {
  const ir = json('transcript-two-segments.ir.json') as Transcript;
  t.equal(encodeTranscript(ir, 'text').body, text('transcript-two-segments.expected.txt'));
  t.equal(encodeTranscript(ir, 'srt').body, text('transcript-two-segments.expected.srt'));
  t.equal(encodeTranscript(ir, 'vtt').body, text('transcript-two-segments.expected.vtt'));
});
