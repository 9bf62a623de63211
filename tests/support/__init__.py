"""Helpers the tests share: fakes at the edge of real systems (NVML stand-in rig, Docker engine,
command runner, fake torch), recorded hosts and matrices, golden-file switch. Test modules import
from here (`from tests.support.hosts import host`), never from a conftest or another test module;
conftest files only hold fixtures and hooks. pytest runs with --import-mode=importlib.
"""
