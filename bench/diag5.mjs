import { connect } from '@nats-io/transport-node';
const nc = await connect({ servers: '127.0.0.1:4222' });
console.log('max_payload', nc.info?.max_payload);
await nc.close();
