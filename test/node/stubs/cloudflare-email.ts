/** `cloudflare:email` outside workerd: the Node suite builds the route table, never sends. */
export class EmailMessage {
  constructor(
    readonly from: string,
    readonly to: string,
    readonly raw: unknown,
  ) {}
}
