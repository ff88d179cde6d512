"""Random send / stop / approve / deny / continue / restart sequences against a provider that fails anywhere: no call
runs twice or without approval, live and stored histories stay valid, the state is a documented one, and only the
documented ValueError is ever raised. (scripts/property_check.py runs many more.)"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

from .property_chat import ChatMachine

TestChatProperties = ChatMachine.TestCase
TestChatProperties.settings = settings(max_examples=200, stateful_step_count=10, deadline=None,
                                       suppress_health_check=[HealthCheck.too_slow], derandomize=True)
