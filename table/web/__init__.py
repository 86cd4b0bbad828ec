"""The table page: what the referee sees and decides, served to the phones and laptops at the table.

The controller's loop publishes state snapshots and events (:mod:`table.web.live`), the camera thread
publishes frames (:mod:`table.web.camera`), both into a :class:`~table.web.feed.TableFeed`; the server
(:mod:`table.web.server`, Starlette on uvicorn in its own thread) hands them to each viewer and turns a
host's tap into the same terminal input the controller journals and judges (:mod:`table.web.inputs`).
Nothing here blocks the controller: a publish copies references and schedules the fan-out on the server's
event loop; each viewer has a bounded queue that drops frames, never events.
"""
