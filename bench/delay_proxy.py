"""A TCP proxy that adds a delay to each Redis round trip (bench/strangers.sh).

Usage: python3 bench/delay_proxy.py LISTEN_PORT UPSTREAM_PORT DELAY_MS

Listens on 127.0.0.1:LISTEN_PORT and forwards every connection to
127.0.0.1:UPSTREAM_PORT. Bytes from the client reach Redis DELAY_MS after
they arrived, in order, and answers come back at once, so each request and
answer round trip takes DELAY_MS longer, as over a slow LAN. Prints
"ready" once listening.
"""

import asyncio
import sys


async def pipe_delayed(reader, writer, delay):
    """Copies reader to writer, each chunk `delay` seconds after it came."""
    loop = asyncio.get_running_loop()
    queue = asyncio.Queue()

    async def send():
        while True:
            due, data = await queue.get()
            if data is None:
                break
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            writer.write(data)
            await writer.drain()
        writer.close()

    sender = asyncio.create_task(send())
    try:
        while data := await reader.read(65536):
            queue.put_nowait((loop.time() + delay, data))
    except ConnectionError:
        pass
    queue.put_nowait((0, None))
    try:
        await sender
    except ConnectionError:
        pass


async def main(listen, upstream, delay):
    async def handle(client_r, client_w):
        try:
            redis_r, redis_w = await asyncio.open_connection("127.0.0.1", upstream)
        except OSError:
            client_w.close()
            return
        await asyncio.gather(
            pipe_delayed(client_r, redis_w, delay),
            pipe_delayed(redis_r, client_w, 0),
            return_exceptions=True,
        )

    server = await asyncio.start_server(handle, "127.0.0.1", listen)
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3]) / 1000))
