// The baseline: a Worker that answers a constant, on the same workerd as the platform.
export default {
  fetch() {
    return new Response('ok', { headers: { 'Content-Type': 'text/plain' } });
  },
};
