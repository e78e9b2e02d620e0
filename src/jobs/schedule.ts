/** The scheduled() handler: starts due job runs. Built by the jobs area. */
export async function handleScheduled(controller: ScheduledController, env: Env, ctx: ExecutionContext): Promise<void> {
  void env;
  void ctx;
  console.log('cron tick', controller.cron, new Date(controller.scheduledTime).toISOString());
}
