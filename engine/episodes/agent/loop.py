"""The agent loop: the one way a model acts on a simulated world, for every module that offers tools.

Each user message is sent in turn; the model answers, every call of its reply is executed through the
world's one boundary (:func:`engine.world.execute`) and answered with one ``tool`` message, until it replies
without a call. ``max_calls`` bounds the model's replies over the whole episode, whatever the number of user
messages. A call with broken JSON, an unknown tool or wrong argument types is answered with an error, as a
real API would; it never ends the episode. The system message is not written here: it is the module's
(:func:`engine.episodes.agent.prompt.system_prompt`), set once when the conversation starts.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.episodes.base import Conversation
from engine.world import World, execute


async def run_agent(convo: Conversation, world: World, messages: Sequence[str], max_calls: int) -> None:
    schemas = world.tool_schemas()
    calls_left = max_calls
    for message in messages:
        convo.add("user", message)
        while calls_left > 0:
            calls_left -= 1
            reply = await convo.ask(tools=schemas)
            if not reply.tool_calls:
                break
            for call in reply.tool_calls:
                outcome = execute(world, call)
                convo.add_tool_result(call.id, call.name, outcome.content, injected_failure=outcome.injected)
