/** A minimal webhook receiver for the delivery benchmark: answers 200 and counts, in its own process. */
import { createServer } from 'node:http';

const port = Number(process.argv[2]);
let count = 0;
const server = createServer((req, res) => {
  if (req.url === '/count') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ count }));
    return;
  }
  req.resume();
  req.on('end', () => {
    count += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(port, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
