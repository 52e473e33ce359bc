#ifndef EDGENAV_CMOSQUITTO_SHIM_H
#define EDGENAV_CMOSQUITTO_SHIM_H
#include <mosquitto.h>
#include <mqtt_protocol.h>
#endif
