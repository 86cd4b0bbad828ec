"""The table page: what the referee sees and decides, served to the phones and laptops at the table.

The controller's loop publishes state snapshots and events (:mod:`table.web.live`), the camera thread
publishes frames (:mod:`table.web.camera`, encoded to JPEG in the controller's process), both into a
:class:`~table.web.process.ServerProcess`, which sends them (:mod:`table.web.wire`) to the page's server in a
process of its own (:mod:`table.web.child`). There a :class:`~table.web.feed.TableFeed` hands them to each
viewer and the server (:mod:`table.web.server`, Starlette on uvicorn) turns a host's tap into the same terminal
input the controller journals and judges (:mod:`table.web.inputs`), sent back to the controller's process.
Nothing here blocks the controller: a publish queues references; the link to the server is bounded (it drops
frames, and a server too far behind is sent the whole state again rather than lose an event silently); each
viewer has a bounded queue that drops frames, never events.
"""
