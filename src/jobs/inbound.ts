/** Inbound org-group mail (the email() handler): built by the jobs area. */
export async function handleInboundEmail(message: ForwardableEmailMessage, env: Env, ctx: ExecutionContext): Promise<void> {
  void env;
  void ctx;
  console.log('inbound mail', message.from, '->', message.to);
  message.setReject('no job accepts mail at this address');
}
