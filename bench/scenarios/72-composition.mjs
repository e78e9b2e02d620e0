// Composition at the moment of use: a page and a mail web view whose content names another
// user's variables, resolved with the rights of everyone whose content led there (the owner,
// the content's writer, the template's owner and writer). Target: the check costs no D1
// round trip of its own: it is batched with the reads of the values, so a page naming other
// documents' variables takes one round trip more than a page naming none (as it did before
// the check), and a mail with a template reads the template and checks it in one.
export default async function composition(b) {
  const [owner, third] = [await b.makeUser({ profile_public: true }), await b.makeUser({ profile_public: true })];
  const ok = async (method, path, user, text) => {
    const r = await b.http(method, path, { token: user.token, ...(text === undefined ? {} : { text }) });
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  };
  // third's document with 10 variables, shared with a group the owner is in.
  await ok('PUT', '/v1/vis/docs/fin', third);
  for (let i = 0; i < 10; i++) {
    await ok('PUT', `/v1/vis/docs/fin/vars/v${i}`, third);
    await ok('POST', `/v1/vis/docs/fin/vars/v${i}/value`, third, String(1000 + i));
  }
  await ok('PUT', '/v1/admin/groups/readers', third);
  await ok('PUT', `/v1/admin/groups/readers/roles/members/${owner.username}`, third);
  await ok('POST', `/v1/admin/invites/@${third.username}~readers/accept`, owner, 'yes');
  await ok('PUT', `/v1/vis/docs/fin/shared/@${third.username}~readers`, third);
  const refs = Array.from({ length: 10 }, (_, i) => `{/u/${third.username}/d/fin/v/v${i}}`).join(' ');
  const auth = { Authorization: `Bearer ${owner.token}` };

  await ok('PUT', '/v1/vis/docs/plain', owner);
  await ok('POST', '/v1/vis/docs/plain/content', owner, '# Figures\n\nNothing of anyone else.');
  await b.measure('composition: page naming nothing of another user', `/u/${owner.username}/d/plain`, {
    headers: auth,
  });
  await ok('PUT', '/v1/vis/docs/figures', owner);
  await ok('POST', '/v1/vis/docs/figures/content', owner, `# Figures\n\n${refs}`);
  await b.measure("composition: page naming 10 of another user's variables", `/u/${owner.username}/d/figures`, {
    headers: auth,
    target: 'target: one round trip more than the plain page (the values and the check share it)',
  });
  // A mail wrapped in the third user's public template, which names the same variables.
  await ok('PUT', '/v1/vis/docs/tpl', third);
  await ok('POST', '/v1/vis/docs/tpl/content', third, `Letterhead ${refs}\n\n{{ content }}`);
  await ok('PUT', '/v1/vis/docs/tpl/shared/public', third);
  await ok('PUT', '/v1/vis/mails/news', owner);
  await ok('POST', '/v1/vis/mails/news/config/template', owner, `/u/${third.username}/d/tpl`);
  await ok('POST', '/v1/vis/mails/news/content', owner, `Dear reader, ${refs}`);
  await b.measure(
    "composition: mail web view, a template and content naming 10 of another user's variables",
    `/u/${owner.username}/m/news`,
    { headers: auth },
  );
}
