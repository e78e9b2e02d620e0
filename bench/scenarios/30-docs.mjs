// Documents: GET of a document's content, and the /v1/vis/docs listing with 1,000
// documents. Target: the listing's p50 stays within 2x of the content GET's p50,
// taken from an interleaved latency run (bench/interleaved.mjs). Pages: the first page
// (?limit=100) of 100,000 documents within 1.2x of the whole listing of 100, one round trip.
import { interleaved, quantile, record } from '../interleaved.mjs';
import { seedDocs, stateDirOf } from '../local-d1.mjs';

const SAMPLES = 400;

export default async function docs(b) {
  const u = await b.makeUser();
  const auth = { Authorization: `Bearer ${u.token}` };
  const N = 1000;
  const names = Array.from({ length: N }, (_, i) => `doc_${String(i).padStart(4, '0')}`);
  for (let i = 0; i < N; i += 25) {
    await Promise.all(
      names.slice(i, i + 25).map(async (n) => {
        const r = await b.http('PUT', `/v1/vis/docs/${n}`, { token: u.token });
        if (r.status !== 201) throw new Error(`create ${n}: ${r.status}`);
      }),
    );
  }
  const content = '# Quarterly report\n\n' + 'Revenue grew in every region this quarter. '.repeat(100);
  const w = await b.http('POST', `/v1/vis/docs/${names[0]}/content`, { token: u.token, text: content });
  if (w.status !== 204) throw new Error(`write content: ${w.status}`);

  const read = await b.measure('docs: GET content (4 KiB)', `/v1/vis/docs/${names[0]}/content`, { headers: auth });
  const list = await b.measure(`docs: GET /v1/vis/docs (${N} documents)`, '/v1/vis/docs', {
    headers: auth,
    target: 'target: p50 <= 2x content GET p50',
  });
  console.log(
    `docs: autocannon p50s (whole ms) ${list.p50_ms} / ${read.p50_ms} = ${(list.p50_ms / read.p50_ms).toFixed(2)} (coarse; the target uses the interleaved run below)`,
  );
  const [readLat, listLat] = await interleaved(
    b,
    [
      { method: 'GET', path: `/v1/vis/docs/${names[0]}/content`, headers: auth },
      { method: 'GET', path: '/v1/vis/docs', headers: auth },
    ],
    SAMPLES,
  );
  record(b, `docs: GET content (4 KiB), interleaved x${SAMPLES}`, readLat);
  record(
    b,
    `docs: GET /v1/vis/docs (${N} documents), interleaved x${SAMPLES}`,
    listLat,
    'target: p50 <= 2x content GET p50',
  );
  const ratio = quantile(listLat, 0.5) / quantile(readLat, 0.5);
  console.log(
    `docs: listing p50 / content p50 = ${quantile(listLat, 0.5).toFixed(2)} / ${quantile(readLat, 0.5).toFixed(2)} ms = ${ratio.toFixed(2)} (target <= 2) ${ratio <= 2 ? 'OK' : 'MISSED'}`,
  );
  await b.measure('docs: GET folder listing of one document', `/v1/vis/docs/${names[0]}`, { headers: auth });
  await b.measure('docs: GET /v1/u/:user/d/:doc info envelope', `/v1/u/${u.username}/d/${names[0]}`, { headers: auth });

  await pages(b);
}

/** A paged listing of 100,000 documents against the whole listing of 100 (seeded into D1). */
async function pages(b) {
  const [small, large] = [await b.makeUser(), await b.makeUser()];
  const stateDir = stateDirOf(new URL(b.base).port);
  seedDocs(stateDir, small.username, 'p', 100);
  seedDocs(stateDir, large.username, 'p', 100_000);
  const whole = { method: 'GET', path: '/v1/vis/docs', headers: { Authorization: `Bearer ${small.token}` } };
  const page = { method: 'GET', path: '/v1/vis/docs?limit=100', headers: { Authorization: `Bearer ${large.token}` } };
  await b.measure('docs: GET /v1/vis/docs (100 documents)', whole.path, { headers: whole.headers });
  await b.measure('docs: GET /v1/vis/docs?limit=100 (first page of 100,000)', page.path, {
    headers: page.headers,
    target: 'target: p50 <= 1.2x the 100-document listing, 1 round trip',
  });
  const [wholeLat, pageLat] = await interleaved(b, [whole, page], SAMPLES);
  record(b, `docs: GET /v1/vis/docs (100 documents), interleaved x${SAMPLES}`, wholeLat);
  record(
    b,
    `docs: first page of 100,000 documents, interleaved x${SAMPLES}`,
    pageLat,
    'target: p50 <= 1.2x the 100-document listing',
  );
  const ratio = quantile(pageLat, 0.5) / quantile(wholeLat, 0.5);
  console.log(
    `docs: first page of 100,000 / listing of 100 = ${quantile(pageLat, 0.5).toFixed(2)} / ${quantile(wholeLat, 0.5).toFixed(2)} ms = ${ratio.toFixed(2)} (target <= 1.2) ${ratio <= 1.2 ? 'OK' : 'MISSED'}`,
  );
}
