/** Raw inbound messages of the jobs suites; pure, so the Node unit tests use them too. */

/**
 * What the platform's receiver (Cloudflare Email Routing, authserv-id mx.cloudflare.net)
 * prepends to a message whose DKIM signature and SPF check passed for the From domain.
 */
export const authResults = (from: string) => {
  const domain = from.slice(from.lastIndexOf('@') + 1);
  return `Authentication-Results: mx.cloudflare.net; dkim=pass header.d=${domain} header.s=s1; spf=pass smtp.mailfrom=${from}`;
};

/**
 * A small multipart message with a text part and one CSV attachment, authenticated (the
 * receiver's Authentication-Results for `from` on top) unless `headers` says otherwise.
 */
export const rawMail = (from: string, to: string, subject: string, headers: string[] = [authResults(from)]) =>
  new TextEncoder().encode(
    [
      ...headers,
      `From: ${from}`,
      `To: ${to}`,
      `Subject: ${subject}`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b"',
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'please process',
      '--b',
      'Content-Type: text/csv',
      'Content-Disposition: attachment; filename="rows.csv"',
      '',
      'a,b',
      '--b--',
      '',
    ].join('\r\n'),
  ).buffer as ArrayBuffer;
