import t from 'tap';
import {
  decodeSubmitData,
  decodeUpstreamEnvelope,
  decodeUpstreamTask,
  decodeUpstreamTasks,
  mapUpstreamStatus,
} from '../../../adapters/tune/index.ts';
import { GatewayError } from '../../../src/ir/gateway-error.ts';

t.test('upstream status words map onto IN_PROGRESS, SUCCESS and FAIL', async (t) => {
  const cases: Record<string, string> = {
    SUBMITTED: 'IN_PROGRESS',
    QUEUED: 'IN_PROGRESS',
    NOT_START: 'IN_PROGRESS',
    IN_PROGRESS: 'IN_PROGRESS',
    streaming: 'IN_PROGRESS',
    SUCCESS: 'SUCCESS',
    complete: 'SUCCESS',
    FAILURE: 'FAIL',
    FAIL: 'FAIL',
    error: 'FAIL',
    SOMETHING_NEW: 'IN_PROGRESS',
  };
  for (const [word, state] of Object.entries(cases)) t.equal(mapUpstreamStatus(word), state, word);
});

t.test('a task object decodes with seconds, numeric progress and songs', async (t) => {
  const v = decodeUpstreamTask({
    task_id: 'up-1',
    action: 'MUSIC',
    status: 'IN_PROGRESS',
    submit_time: 1_700_000_000_000,
    start_time: '1700000001',
    finish_time: 1_700_000_009,
    progress: '45%',
    data: [
      {
        id: 'c1',
        title: 'T',
        status: 'streaming',
        metadata: { tags: 'pop', duration: '12.5', error_type: null },
        audio_url: 'https://a/c1.mp3',
      },
    ],
  });
  t.ok(v);
  t.equal(v!.submitTime, 1_700_000_000, 'milliseconds scaled to seconds');
  t.equal(v!.startTime, 1_700_000_001);
  t.equal(v!.finishTime, 0, 'finish_time is 0 while unfinished, whatever the upstream says');
  t.equal(v!.progress, 45);
  t.equal(v!.rawStatus, 'IN_PROGRESS');
  t.match(v!.output, {
    kind: 'songs',
    songs: [
      {
        id: 'c1',
        status: 'streaming',
        audioUrl: 'https://a/c1.mp3',
        metadata: { tags: 'pop', duration: 12.5, errorType: null, prompt: '' },
      },
    ],
  });
});

t.test('SUCCESS means 100 %, FAIL keeps the reason or says which status failed', async (t) => {
  t.equal(decodeUpstreamTask({ task_id: 'a', status: 'SUCCESS', progress: '90%' })!.progress, 100);
  t.equal(decodeUpstreamTask({ task_id: 'a', status: 'FAILURE', fail_reason: 'nope' })!.failReason, 'nope');
  t.equal(decodeUpstreamTask({ task_id: 'a', status: 'FAILURE' })!.failReason, 'upstream reported status FAILURE');
});

t.test('lyrics tasks decode one lyrics object; tasks without an id are skipped', async (t) => {
  const [l] = decodeUpstreamTasks([
    {
      task_id: 'l1',
      action: 'LYRICS',
      status: 'SUCCESS',
      data: { id: 'x', text: 'words', title: 'T', status: 'complete' },
    },
    { status: 'SUCCESS' },
  ]);
  t.same(l.output, { kind: 'lyrics', lyrics: { id: 'x', text: 'words', title: 'T', status: 'complete' } });
  t.equal(decodeUpstreamTasks(null).length, 0);
});

t.test('envelopes: success data, upstream 4xx kept, 5xx and credential refusals as 502', async (t) => {
  t.equal(decodeUpstreamEnvelope(200, { code: 'success', message: '', data: 'id-1' }, 'up'), 'id-1');
  const cases: Array<[number, unknown, number]> = [
    [400, { code: 'error', message: 'bad prompt' }, 400],
    [429, { code: 'error', message: 'slow down' }, 429],
    [500, { code: 'error', message: 'boom' }, 502],
    [401, { code: 'error', message: 'bad key' }, 502],
    [200, { code: 'error', message: 'refused' }, 502],
  ];
  for (const [status, body, want] of cases) {
    try {
      decodeUpstreamEnvelope(status, body, 'up');
      t.fail('should throw');
    } catch (e) {
      t.ok(e instanceof GatewayError);
      t.equal((e as GatewayError).status, want, `HTTP ${status}`);
      t.match((e as GatewayError).message, /^provider 'up': /);
    }
  }
  t.equal(decodeSubmitData({ task_id: 'wrapped' }, 'up'), 'wrapped');
});
